#!/usr/bin/env node
// Refuses a release whose tag does not name package.json's version (v0.2.0 for 0.2.0): npm would
// publish the version in package.json whatever the tag says, and the two would tell different stories.
'use strict';
const { version } = require('../package.json');

const tag = process.argv[2];
if (!tag) {
	console.error('usage: node scripts/release-check.js <tag>   (for example v' + version + ')');
	process.exit(2);
}
if (tag !== `v${version}`) {
	console.error(`release-check: the tag ${tag} does not match package.json's version ${version}: tag v${version}, or change the version first`);
	process.exit(1);
}
console.log(`release-check: tag ${tag} matches package.json's version`);

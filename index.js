// n8n loads the nodes listed in package.json's "n8n" section; this entry point lets the package
// be required directly too (for example by tests or other tools).
module.exports = {
	ResilientHttpRequest: require('./dist/nodes/ResilientHttpRequest/ResilientHttpRequest.node.js').ResilientHttpRequest,
	BackoffDelay: require('./dist/nodes/BackoffDelay/BackoffDelay.node.js').BackoffDelay,
};

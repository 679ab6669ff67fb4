/**
 * The Form URL Encoded body is qs.stringify's, as HTTP Request sends it (through n8n's request
 * helper): proved against the qs package on generated fields.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';
import { stringifyForm } from '../../nodes/ResilientHttpRequest/transport/form-urlencoded';

// qs (there as a dependency of n8n's packages; no type declarations) is what n8n's request helper uses
const { stringify } = jest.requireActual<{ stringify(value: unknown): string }>('qs');

describe('stringifyForm', () => {
	it('what HTTP Request 4.3+ sends for a name given twice and a name with a space', () => {
		expect(stringifyForm({ a: ['1', '2'], 'b c': 'd&e' })).toBe('a%5B0%5D=1&a%5B1%5D=2&b%20c=d%26e');
	});

	it('equals qs.stringify for strings, numbers, booleans, null, arrays and nested objects', () => {
		const key = fc.string({ unit: 'grapheme', maxLength: 6 });
		const leaf = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null));
		const value = fc.letrec((tie) => ({
			node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(key, tie('node'), { maxKeys: 3 })),
		})).node;
		fc.assert(
			fc.property(fc.dictionary(key, value, { maxKeys: 5 }), (fields) => {
				expect(stringifyForm(fields as IDataObject)).toBe(stringify(fields));
			}),
		);
	});
});

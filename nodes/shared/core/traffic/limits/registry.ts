/**
 * The traffic controller's limits, in their order of precedence: a request waits for the first
 * that refuses it (the reason it is told), and each learns from a report in this order. A new
 * limit is one module (limit.ts's interface) and one line here.
 */
import { budget } from './budget';
import { buckets } from './buckets';
import { hold } from './hold';
import { pace } from './pace';
import { pause } from './pause';
import { quota } from './quota';
import { tokens } from './tokens';
import { window } from './window';
import type { Limit } from '../types';

export const TRAFFIC_LIMITS: readonly Limit[] = Object.freeze([pause, quota, buckets, hold, tokens, window, pace, budget]);

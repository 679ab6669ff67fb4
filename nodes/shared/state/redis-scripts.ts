/**
 * The Redis store's Lua scripts: budget.ts, breaker.ts and window.ts ported step by step (the
 * comments name the TypeScript function each part mirrors). Redis runs a script as one atomic
 * step, so concurrent workers never lose an update, exactly like one turn of the event loop in
 * the memory store.
 *
 * Both scripts take the state key as KEYS[1] and the caller's clock as an argument: the time is
 * the worker's, not Redis's, as for the memory store (workers' clocks must be roughly in sync,
 * which n8n's queue mode needs anyway). Redis's clock only drives the keys' expiry (PEXPIRE), and
 * the expiry is set `ttlGraceMs` after the moment the core forgets the state, so a clock a little
 * ahead of Redis's never loses live state.
 *
 * Numbers: Lua 5.1 numbers are IEEE doubles, like JavaScript's, and every operation below is the
 * same operation in the same order as in the TypeScript core, so the answers are identical
 * (checked against the pure core by property tests on a real Redis). Numbers cross the boundary as
 * strings that round-trip exactly: into Lua as JavaScript's `String(n)` (shortest exact form) or
 * `nan` / `inf` / `-inf`; out of Lua (and into the hash) as `%.17g`, because Redis truncates a Lua
 * number reply to an integer, and Lua's own tostring keeps only 14 digits.
 *
 * Stored state, a hash per key (fields are short; values are numbers as %.17g):
 *   rh:budget:<key>   w = window ms, b = buckets "n,a,b;n,a,b" (oldest first), f = forget-at
 *   rh:breaker:<key>  s = state, c = consecutive failures, o = openings, u = openUntil or '',
 *                     p = probeSince or '', w, b (closed only), f = forget-at
 * `f` is budgetForgetAt / breakerForgetAt of the state as written (the caller's clock): a read at
 * or after it finds no state, exactly as the memory store drops the entry (MemoryStateStore.take).
 * A state with nothing to remember (forget-at not after now) is deleted, not written.
 */

/** Shared helpers: number encoding and the bucketed window of window.ts. */
const WINDOW_LUA = `
local B = 10
local MAX_WINDOW_MS = 2147483648
local HUGE = math.huge

-- A number from the caller: JavaScript's String(n), or nan / inf / -inf
local function num(s)
  if s == 'nan' then return 0 / 0 end
  if s == 'inf' then return HUGE end
  if s == '-inf' then return -HUGE end
  local n = tonumber(s)
  if n == nil then return 0 / 0 end
  return n
end

-- A number for a reply or the hash: exact (17 significant digits)
local function fmt(x)
  if x ~= x then return 'nan' end
  if x == HUGE then return 'inf' end
  if x == -HUGE then return '-inf' end
  return string.format('%.17g', x)
end

-- breaker.ts nonNegative / budget.ts budgetLimit's guards: finite and > 0, else 0
local function non_negative(x)
  if x == x and x > 0 and x ~= HUGE then return x end
  return 0
end

-- window.ts clampWindowMs
local function clamp_window_ms(w)
  if w ~= w or w < 1 then return 1 end
  if w > MAX_WINDOW_MS then return MAX_WINDOW_MS end
  return w
end

-- window.ts bucketNumber
local function bucket_number(now, w)
  return math.floor((now * B) / w)
end

-- window.ts currentBucket: never older than the newest bucket already there
local function current_bucket(buckets, now, w)
  local n = bucket_number(now, w)
  if #buckets == 0 then return n end
  return math.max(n, buckets[#buckets][1])
end

-- window.ts liveBuckets: the buckets still in the window that ends in bucket current
local function live_buckets(buckets, current)
  local live = {}
  for _, bucket in ipairs(buckets) do
    if bucket[1] > current - B then live[#live + 1] = { bucket[1], bucket[2], bucket[3] } end
  end
  return live
end

-- window.ts addToBucket
local function add_to_bucket(live, current, a, b)
  local newest = live[#live]
  if newest ~= nil and newest[1] == current then
    newest[2] = newest[2] + a
    newest[3] = newest[3] + b
  else
    live[#live + 1] = { current, a, b }
  end
end

-- window.ts windowTotals
local function window_totals(live)
  local a, b = 0, 0
  for _, bucket in ipairs(live) do
    a = a + bucket[2]
    b = b + bucket[3]
  end
  return a, b
end

-- window.ts windowEmptyAt
local function window_empty_at(buckets, w)
  if #buckets == 0 then return -HUGE end
  return math.ceil(((buckets[#buckets][1] + B) * w) / B)
end

local function encode_buckets(buckets)
  local parts = {}
  for i, bucket in ipairs(buckets) do parts[i] = fmt(bucket[1]) .. ',' .. fmt(bucket[2]) .. ',' .. fmt(bucket[3]) end
  return table.concat(parts, ';')
end

local function decode_buckets(s)
  local buckets = {}
  if s == nil or s == '' then return buckets end
  for n, a, b in string.gmatch(s, '([^,;]+),([^,;]+),([^,;]+)') do buckets[#buckets + 1] = { num(n), num(a), num(b) } end
  return buckets
end

-- The hash at key as a table, or nil when absent or forgotten (at or after its forget-at)
local function load(key, now)
  local flat = redis.call('HGETALL', key)
  if #flat == 0 then return nil end
  local h = {}
  for i = 1, #flat, 2 do h[flat[i]] = flat[i + 1] end
  if h.f == nil or now >= num(h.f) then return nil end
  return h
end

-- Writes the state, or deletes it when it holds nothing (MemoryStateStore.keep). The key expires
-- grace ms after its forget-at, by Redis's clock (at most MAX_TTL_MS: about 10 years).
local MAX_TTL_MS = 315360000000
local function store(key, now, forget_at, grace, fields)
  local ttl = math.ceil(forget_at - now) + grace
  if now >= forget_at or ttl ~= ttl then
    redis.call('DEL', key)
    return
  end
  if ttl > MAX_TTL_MS then ttl = MAX_TTL_MS end
  fields[#fields + 1] = 'f'
  fields[#fields + 1] = fmt(forget_at)
  redis.call('HSET', key, unpack(fields))
  redis.call('PEXPIRE', key, string.format('%.0f', ttl))
end
`;

/**
 * budget.ts recordFirst / tryAcquire.
 * KEYS[1] = budget key; ARGV = op ('first' | 'retry'), now, ratio, minRetriesPerWindow, windowMs, ttlGraceMs.
 * Reply: { allowed '1'/'0', firstAttempts, retries, available, windowMs } (strings).
 */
export const BUDGET_SCRIPT = `${WINDOW_LUA}
local key = KEYS[1]
local op = ARGV[1]
local now = num(ARGV[2])
local ratio = num(ARGV[3])
local min_retries = num(ARGV[4])
local grace = num(ARGV[6])

-- budget.ts windowAt (steps 1-3): the window ending now
local w = clamp_window_ms(num(ARGV[5]))
local h = load(key, now)
local buckets = {}
if h ~= nil and num(h.w) == w then buckets = decode_buckets(h.b) end
local current = current_bucket(buckets, now, w)
local live = live_buckets(buckets, current)

-- budget.ts budgetLimit (step 4)
local function limit_for(first_attempts)
  return math.floor(non_negative(ratio) * first_attempts + 1e-9) + non_negative(min_retries)
end

local allowed = true
if op == 'first' then
  add_to_bucket(live, current, 1, 0)
elseif op == 'retry' then
  local f, r = window_totals(live)
  allowed = r + 1 <= limit_for(f)
  if allowed then add_to_bucket(live, current, 0, 1) end
else
  return redis.error_reply('unknown budget op ' .. tostring(op))
end

-- budget.ts budgetForgetAt, then the store keeps or drops it
store(key, now, window_empty_at(live, w), grace, { 'w', fmt(w), 'b', encode_buckets(live) })

-- budget.ts snapshotOf
local first_attempts, retries = window_totals(live)
local available = math.max(0, math.floor(limit_for(first_attempts) - retries))
return { allowed and '1' or '0', fmt(first_attempts), fmt(retries), fmt(available), fmt(w) }
`;

/**
 * breaker.ts allowCall / recordOutcome.
 * KEYS[1] = breaker key; ARGV = op ('allow' | 'record'), now, success ('1'/'0'), consecutiveFailures,
 * failureRatio, minimumCalls, windowMs, breakMs, maxBreakMs, ttlGraceMs.
 * Reply: { allowed, probe, changed ('1'/'0'), from, state, consecutiveFailures, openings, openUntil or '' }.
 * allowed/probe answer 'allow'; changed/from answer 'record' (the state it left, when it changed).
 */
export const BREAKER_SCRIPT = `${WINDOW_LUA}
local key = KEYS[1]
local op = ARGV[1]
local now = num(ARGV[2])
local success = ARGV[3] == '1'
local p_consecutive = num(ARGV[4])
local p_ratio = num(ARGV[5])
local p_minimum = num(ARGV[6])
local p_window = num(ARGV[7])
local p_break = num(ARGV[8])
local p_max_break = num(ARGV[9])
local grace = num(ARGV[10])

-- breaker.ts breakDuration
local function break_duration(openings)
  local base = non_negative(p_break)
  local cap = non_negative(p_max_break)
  local exponent = math.min(math.max(0, openings - 1), 60)
  return math.min(cap, base * 2 ^ exponent)
end

-- breaker.ts memoryMs
local function memory_ms()
  return math.max(clamp_window_ms(p_window), non_negative(p_break), non_negative(p_max_break))
end

-- breaker.ts breakerForgetAt
local function forget_at(d)
  if d.state == 'closed' then return window_empty_at(d.buckets, d.window_ms) end
  if d.state == 'open' then return (d.open_until or -HUGE) + memory_ms() end
  return (d.probe_since or -HUGE) + non_negative(p_break) + memory_ms()
end

local function fresh(w)
  return { state = 'closed', consecutive = 0, openings = 0, window_ms = w, buckets = {} }
end

local function optional(s)
  if s == nil or s == '' then return nil end
  return num(s)
end

-- breaker.ts settle: the state as it stands now
local w = clamp_window_ms(p_window)
local h = load(key, now)
local d
if h == nil then
  d = fresh(w)
else
  d = { state = h.s, consecutive = num(h.c), openings = num(h.o), open_until = optional(h.u), probe_since = optional(h.p),
        window_ms = num(h.w), buckets = decode_buckets(h.b) }
  if now >= forget_at(d) then
    d = fresh(w)
  else
    if d.window_ms ~= w then d.buckets = {} end
    d.window_ms = w
    if d.state == 'closed' then d.buckets = live_buckets(d.buckets, current_bucket(d.buckets, now, w)) end
  end
end

-- breaker.ts open
local function open()
  d.state = 'open'
  d.openings = d.openings + 1
  d.open_until = now + break_duration(d.openings)
  d.probe_since = nil
  d.buckets = {}
end

-- breaker.ts shouldTrip
local function should_trip()
  if p_consecutive > 0 and d.consecutive >= p_consecutive then return true end
  if not (p_ratio > 0) then return false end
  local calls, failures = window_totals(d.buckets)
  return calls > 0 and calls >= p_minimum and failures / calls >= p_ratio
end

local allowed, probe, changed = '0', '0', '0'
local from = d.state
if op == 'allow' then
  -- breaker.ts allowCall
  local let_probe = false
  if d.state == 'closed' then
    allowed = '1'
  elseif d.state == 'open' then
    let_probe = not (d.open_until ~= nil and now < d.open_until)
  else
    let_probe = not (d.probe_since ~= nil and now < d.probe_since + non_negative(p_break))
  end
  if let_probe then
    d.state = 'half-open'
    d.probe_since = now
    d.open_until = nil
    allowed, probe = '1', '1'
  end
elseif op == 'record' then
  -- breaker.ts recordOutcome
  if d.state == 'closed' then
    if #d.buckets == 0 then d.consecutive = 0 end
    local failure = 1
    if success then failure = 0 end
    add_to_bucket(d.buckets, current_bucket(d.buckets, now, d.window_ms), 1, failure)
    if success then d.consecutive = 0 else d.consecutive = d.consecutive + 1 end
    if not success and should_trip() then
      open()
      changed = '1'
    end
  elseif d.state == 'half-open' then
    if success then
      d.state = 'closed'
      d.openings = 0
      d.consecutive = 0
      d.probe_since = nil
      d.buckets = {}
    else
      d.consecutive = d.consecutive + 1
      open()
    end
    changed = '1'
  end
else
  return redis.error_reply('unknown breaker op ' .. tostring(op))
end

local function opt_fmt(x)
  if x == nil then return '' end
  return fmt(x)
end
store(key, now, forget_at(d), grace, {
  's', d.state, 'c', fmt(d.consecutive), 'o', fmt(d.openings), 'u', opt_fmt(d.open_until), 'p', opt_fmt(d.probe_since),
  'w', fmt(d.window_ms), 'b', encode_buckets(d.buckets),
})

-- breaker.ts snapshotOf: openUntil of an open breaker, or when a half-open one gives up its probe
local snapshot_until = ''
if d.state == 'open' and d.open_until ~= nil then snapshot_until = fmt(d.open_until) end
if d.state == 'half-open' and d.probe_since ~= nil then snapshot_until = fmt(d.probe_since + non_negative(p_break)) end
return { allowed, probe, changed, from, d.state, fmt(d.consecutive), fmt(d.openings), snapshot_until }
`;

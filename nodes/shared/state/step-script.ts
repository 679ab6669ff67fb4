/**
 * The Lua the Redis store runs, and nothing else. It reads its KEYS and ARGV by name (`keys.state`,
 * `args.version`, ...): the names, their positions and the count fields it names are declared once,
 * in state/step-codec.ts, which puts them in front of this source as `local` declarations. STEP
 * holds no policy: it checks that the steps' verdicts still hold and applies what they wrote.
 *
 * STEP: expired leases are dropped first. An exact write (`args.mode` 'x') needs the version, the
 * counts' sequence and the leases the steps saw; a merge ('m') needs the version and the leases in
 * its range, a window no larger than `args.windowAtMost` (a window others grew raises the most in
 * flight as much, up to `args.roomCeiling`), and adds its counts to whatever other workers added.
 * The count changes are `args.ops` arguments from OPS_FROM: 'a' field n (add) | 'x' field n (the
 * larger) | 's' field n (set) | 'd' field. The leases added are numbered on from `args.first`
 * under `args.prefix`; those ended are short numbers ('a,b,c').
 */

export const STEP_BODY = `
redis.call('ZREMRANGEBYSCORE', keys.leases, '-inf', args.now)
local current = redis.call('GET', keys.state)
if current == false then current = '' end
local version = string.match(current, '^[^\\n]*')
local count = redis.call('ZCARD', keys.leases)
local sequence = redis.call('HGET', keys.counts, '_')
if sequence == false then sequence = '' end
local exact = args.mode == 'x'
local ws = tonumber(redis.call('HGET', keys.counts, WINDOW_SIZE) or '0')
local grown = args.windowAtMost ~= '' and ws > tonumber(args.windowAtMost)
local most = math.huge
if args.most ~= '' then most = tonumber(args.most) end
if args.roomSize ~= '' then
  local ceiling = tonumber(args.roomCeiling)
  most = most + math.max(0, math.min(ceiling, ws) - math.min(ceiling, tonumber(args.roomSize)))
end
local lost = false
if version ~= args.version then lost = 'state'
elseif count < tonumber(args.fewest) or count > most then lost = 'inFlight'
elseif grown then lost = 'window'
elseif exact and sequence ~= args.sequence then lost = 'counts' end
if lost then
  local first = redis.call('ZRANGE', keys.leases, 0, 0, 'WITHSCORES')
  return {0, current, count, first[2] or '', sequence, redis.call('HGETALL', keys.counts), lost}
end
local ttl = tonumber(args.ttl)
if args.value == '-' then
  redis.call('DEL', keys.state, keys.counts)
else
  if args.value ~= '' then redis.call('SET', keys.state, args.value, 'PX', ttl) end
  local i = OPS_FROM
  while i < OPS_FROM + opCount do
    local op = ARGV[i]
    if op == 'd' then
      redis.call('HDEL', keys.counts, ARGV[i + 1])
      i = i + 2
    else
      if op == 'a' then
        redis.call('HINCRBY', keys.counts, ARGV[i + 1], ARGV[i + 2])
      elseif op == 's' or tonumber(redis.call('HGET', keys.counts, ARGV[i + 1]) or '0') < tonumber(ARGV[i + 2]) then
        redis.call('HSET', keys.counts, ARGV[i + 1], ARGV[i + 2])
      end
      i = i + 3
    end
  end
  if opCount > 0 then sequence = tostring(redis.call('HINCRBY', keys.counts, '_', 1)) end
  if opCount > 0 or args.value ~= '' then
    for _, key in ipairs({keys.state, keys.counts}) do
      if exact or redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
    end
  end
end
local adds = tonumber(args.adds)
if adds > 0 then
  local score = tonumber(args.now) + tonumber(args.endsIn)
  local first = tonumber(args.first)
  local members = {}
  for j = 0, adds - 1 do
    members[#members + 1] = score
    members[#members + 1] = args.prefix .. (first + j)
  end
  redis.call('ZADD', keys.leases, unpack(members))
  if redis.call('PTTL', keys.leases) < tonumber(args.leaseTtl) then redis.call('PEXPIRE', keys.leases, args.leaseTtl) end
end
if args.ends ~= '' then
  local members = {}
  for number in string.gmatch(args.ends, '[^,]+') do members[#members + 1] = args.prefix .. number end
  redis.call('ZREM', keys.leases, unpack(members))
end
if args.channel ~= '' then redis.call('PUBLISH', args.channel, args.message) end
local first = redis.call('ZRANGE', keys.leases, 0, 0, 'WITHSCORES')
local scalars = redis.call('HMGET', keys.counts, unpack(SCALARS))
return {1, redis.call('ZCARD', keys.leases), first[2] or '', sequence, unpack(scalars)}
`;

/** An API's state, its leases in flight at `args.now` and every count, for an operator's list. */
export const READ_BODY = `
local value = redis.call('GET', keys.state)
if value == false then value = '' end
return {value, redis.call('ZCOUNT', keys.leases, '(' .. args.now, '+inf'), redis.call('HGETALL', keys.counts)}
`;

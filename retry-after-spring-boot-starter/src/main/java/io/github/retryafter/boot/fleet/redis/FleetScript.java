package io.github.retryafter.boot.fleet.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The Lua scripts that keep the fleet's state on Redis. Each reads Redis's own clock ({@code TIME}) inside the script,
 * so the arithmetic runs atomically on one clock whatever the instances' clocks say. Times are microseconds since the
 * epoch on Redis's clock; numbers are returned as strings because Redis truncates Lua numbers to integers.
 * <p>
 * A bucket is a hash {@code t} (tokens) and {@code at} (when it was last written); a missing key is a full bucket, so
 * a key expires once the per-second floor would have filled it, and after the key TTL at the latest.
 * <p>
 * <b>Every key is validated before it is used.</b> A key of the wrong type, or whose value is not a number, is
 * answered {@value #BAD} in its place of the reply and is neither read nor written: the caller answers for that key
 * locally and counts it, and no script fails with {@code WRONGTYPE} because of what another client wrote.
 */
enum FleetScript {

	/**
	 * Takes one token from the provider's bucket and one from the global bucket, or neither. KEYS: provider bucket,
	 * global bucket. ARGV: key TTL ms, provider capacity, provider refill/s, global capacity, global refill/s. Returns
	 * {taken (1 or 0), provider tokens, global tokens}; a bucket that is not valid is {@value #BAD} and takes nothing.
	 */
	ACQUIRE(Lua.BOTH_LEVELS + """
			if p == nil or g == nil then
			  return {'0', shown(p), shown(g)}
			end
			if p < 1 or g < 1 then
			  return {'0', tostring(p), tostring(g)}
			end
			store(KEYS[1], p - 1, pcap, prefill, ttl)
			store(KEYS[2], g - 1, gcap, grefill, ttl)
			return {'1', tostring(p - 1), tostring(g - 1)}
			"""),

	/**
	 * Exchanges tokens with an instance that decides its retries without a round trip (on an event loop): adds what it
	 * gives back (leased tokens its retries did not need, or got back by succeeding) to the provider's and the global
	 * bucket, then leases it up to the tokens it wants, from both buckets or neither, and records what it now holds
	 * (leased tokens pooled or in flight) under its id, so the fleet knows how many tokens may yet come back. KEYS:
	 * provider bucket, global bucket, the provider's leases (a hash, instance id to tokens held), the members' sorted
	 * set. ARGV: key TTL ms, provider capacity, provider refill/s, global capacity, global refill/s, tokens given back,
	 * tokens wanted, instance id, tokens it holds after the give. Returns {tokens leased, provider tokens, global
	 * tokens, tokens the fleet's members hold}; a bucket that is not valid is {@value #BAD}, and nothing is given or
	 * leased. Leases of instances no longer counted as members are dropped: their tokens stay spent.
	 */
	LEASE(Lua.BOTH_LEVELS + """
			if p == nil or g == nil then
			  return {'0', shown(p), shown(g), '0'}
			end
			local give = tonumber(ARGV[6])
			p = math.min(pcap, p + give)
			g = math.min(gcap, g + give)
			local grant = math.max(0, math.min(tonumber(ARGV[7]), math.floor(p), math.floor(g)))
			p = p - grant
			g = g - grant
			store(KEYS[1], p, pcap, prefill, ttl)
			store(KEYS[2], g, gcap, grefill, ttl)
			local out = 0
			local kind = redis.call('TYPE', KEYS[3]).ok
			if kind == 'none' or kind == 'hash' then
			  local held = tonumber(ARGV[9]) + grant
			  if held > 0 then
			    redis.call('HSET', KEYS[3], ARGV[8], tostring(held))
			    redis.call('PEXPIRE', KEYS[3], ttl)
			  else
			    redis.call('HDEL', KEYS[3], ARGV[8])
			  end
			  local members = redis.call('TYPE', KEYS[4]).ok == 'zset'
			  local all = redis.call('HGETALL', KEYS[3])
			  for i = 1, #all, 2 do
			    if all[i] == ARGV[8] or not members or redis.call('ZSCORE', KEYS[4], all[i]) then
			      out = out + (tonumber(all[i + 1]) or 0)
			    else
			      redis.call('HDEL', KEYS[3], all[i])
			    end
			  end
			end
			return {tostring(grant), tostring(p), tostring(g), tostring(out)}
			"""),

	/**
	 * Adds the batched deposits (and refunds, less what was spent locally) and reads every bucket, never below zero
	 * nor above capacity. KEYS: global bucket, then each provider's bucket. ARGV: key TTL ms, global capacity,
	 * refill/s, deposit, then capacity, refill/s, deposit per provider (a deposit may be negative). Returns {global
	 * tokens, provider tokens...}, {@value #BAD} for a bucket that is not valid (its deposit is not applied).
	 */
	SYNC(Lua.BUCKETS + """
			local ttl = tonumber(ARGV[1])
			local out = {}
			for i = 1, #KEYS do
			  local cap, refill, dep = tonumber(ARGV[3 * i - 1]), tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1])
			  local tokens = level(KEYS[i], cap, refill)
			  if tokens ~= nil and dep ~= 0 then
			    tokens = math.max(0, math.min(cap, tokens + dep))
			    store(KEYS[i], tokens, cap, refill, ttl)
			  end
			  out[i] = shown(tokens)
			end
			return out
			"""),

	/**
	 * Extends a provider's cooldown: stores max(existing, now + min(floor, cap)), never shorter, and never later than
	 * now + cap (an existing value beyond the cap, written under a longer cap, is brought down to it), so the key lives
	 * at most the cap plus the margin. When the instant moved later, announces it on the fleet's channel
	 * ({@code PUBLISH}, see {@link CooldownChannel} for the message), so the other instances learn it before their next
	 * read. KEYS: cooldown key. ARGV: floor in microseconds, expiry margin ms, cap in microseconds, and optionally the
	 * instance id, the channel and the provider (no announcement without them). Returns {Redis now, cooldown until},
	 * both in microseconds; until is {@value #BAD} when the key is not valid (it is then left alone).
	 */
	EXTEND_COOLDOWN(Lua.COOLDOWNS + """
			local cap = tonumber(ARGV[3])
			local current = instant(KEYS[1])
			if current == nil then
			  return {string.format('%.0f', now), 'bad'}
			end
			local existing = current
			local wanted = now + math.min(tonumber(ARGV[1]), cap)
			if wanted > current then current = wanted end
			if current > now + cap then current = now + cap end
			local ttl = math.ceil((current - now) / 1000) + tonumber(ARGV[2])
			redis.call('SET', KEYS[1], string.format('%.0f', current), 'PX', ttl)
			if current > existing and ARGV[5] and ARGV[5] ~= '' then
			  redis.call('PUBLISH', ARGV[5], string.format('%.0f %.0f %d ', now, current, #ARGV[4]) .. ARGV[4] .. ARGV[6])
			end
			return {string.format('%.0f', now), string.format('%.0f', current)}
			"""),

	/**
	 * Reads the cooldowns. KEYS: cooldown keys. Returns {Redis now, until or '' per key}, in microseconds;
	 * {@value #BAD} for a key that is not valid. With no keys it is the probe's round trip: {Redis now}.
	 */
	READ_COOLDOWNS(Lua.COOLDOWNS + """
			local out = {string.format('%.0f', now)}
			for i = 1, #KEYS do
			  local until_ = instant(KEYS[i])
			  if until_ == nil then
			    out[i + 1] = 'bad'
			  elseif until_ == 0 then
			    out[i + 1] = ''
			  else
			    out[i + 1] = string.format('%.0f', until_)
			  end
			end
			return out
			"""),

	/**
	 * Counts the fleet's instances: records this instance as seen now and drops those not seen within the window.
	 * KEYS: the members' sorted set. ARGV: instance id, window ms. Returns {instances}, or {@value #BAD} when the key
	 * is not a sorted set (it is then left alone).
	 */
	HEARTBEAT(Lua.NOW + """
			local kind = redis.call('TYPE', KEYS[1]).ok
			if kind ~= 'none' and kind ~= 'zset' then
			  return {'bad'}
			end
			local window = tonumber(ARGV[2])
			redis.call('ZADD', KEYS[1], now, ARGV[1])
			redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window * 1000)
			redis.call('PEXPIRE', KEYS[1], window)
			return {tostring(redis.call('ZCARD', KEYS[1]))}
			"""),

	/**
	 * Counts, per provider, the fleet's instances with a backlog at its gate, the requests they hold and the rate they
	 * pace at: records this instance's {@code queued rate} in the hash of each provider it has a backlog for (as
	 * {@code at queued rate}, at Redis's now) and removes it from the others, then drops the fields older than the
	 * window (or not the fleet's). One field per instance, none older than the window, and a hash with fields expires
	 * the window after its last write. KEYS: the providers' backlog hashes. ARGV: instance id, window ms, then per key
	 * {@code "queued rate"}, or an empty string for no backlog. Returns three values per key: instances, requests
	 * queued and requests per second in all; {@value #BAD} three times for a key that is not a hash (it is then left
	 * alone).
	 */
	BACKLOGS(Lua.NOW + """
			local window = tonumber(ARGV[2])
			local out = {}
			for i = 1, #KEYS do
			  local kind = redis.call('TYPE', KEYS[i]).ok
			  if kind ~= 'none' and kind ~= 'hash' then
			    out[3 * i - 2], out[3 * i - 1], out[3 * i] = 'bad', 'bad', 'bad'
			  else
			    local mine = ARGV[i + 2]
			    if mine ~= '' then
			      redis.call('HSET', KEYS[i], ARGV[1], string.format('%.0f', now) .. ' ' .. mine)
			    else
			      redis.call('HDEL', KEYS[i], ARGV[1])
			    end
			    local count, queued, rate = 0, 0, 0
			    local fields = redis.call('HGETALL', KEYS[i])
			    for j = 1, #fields, 2 do
			      local at, q, r = string.match(fields[j + 1], '^(%d+) (%d+) (%d+%.?%d*)$')
			      at, q, r = tonumber(at), tonumber(q), tonumber(r)
			      if at == nil or q == nil or r == nil or r == math.huge or at < now - window * 1000 then
			        redis.call('HDEL', KEYS[i], fields[j])
			      else
			        count, queued, rate = count + 1, queued + q, rate + r
			      end
			    end
			    if count > 0 then
			      redis.call('PEXPIRE', KEYS[i], window)
			    end
			    out[3 * i - 2], out[3 * i - 1], out[3 * i] = tostring(count), string.format('%.0f', queued),
			        string.format('%.3f', rate)
			  end
			end
			return out
			"""),

	/**
	 * Claims the probe after a provider's fleet cooldown: the first instance to claim the probe of a cooldown instant
	 * sends it; the others hold their requests until it is answered. The value is {@code until:owner}; a claim for a
	 * later instant replaces one for an earlier instant, and the key expires {@code lease} after its instant, so a
	 * claim whose owner went away stops holding anyone. A claim for a later instant yields to a claim of the provider's
	 * cooldown instant when its own is not that instant: it was made before Redis's clock stepped back (a failover), and
	 * would otherwise answer every claim until the clock passes its instant. KEYS: the probe key, the provider's cooldown
	 * key. ARGV: instance id, the cooldown's instant (Redis microseconds), lease ms. Returns {owner, instant, Redis
	 * now}, or {@value #BAD} when the key is not the fleet's (it is then left alone, and the caller probes for itself). The owner is {@value #ADMITTED} when that instant's probe was
	 * already admitted by the provider ({@link #END_PROBE}).
	 */
	CLAIM_PROBE(Lua.PROBES + """
			local wanted = tonumber(ARGV[2])
			local shown_now = string.format('%.0f', now)
			local until_, owner = claim(KEYS[1])
			if until_ == nil then
			  return {'bad', 'bad', shown_now}
			end
			local outlived = until_ > wanted and redis.call('TYPE', KEYS[2]).ok == 'string'
			  and tonumber(redis.call('GET', KEYS[2])) == wanted
			if owner ~= '' and until_ >= wanted and not outlived then
			  return {owner, string.format('%.0f', until_), shown_now}
			end
			local ttl = math.ceil((wanted - now) / 1000) + tonumber(ARGV[3])
			if ttl < 1 then ttl = 1 end
			redis.call('SET', KEYS[1], string.format('%.0f', wanted) .. ':' .. ARGV[1], 'PX', ttl)
			return {ARGV[1], string.format('%.0f', wanted), shown_now}
			"""),

	/**
	 * Reads the probe claims. KEYS: probe keys. Returns {instant or '' per key} (Redis microseconds; '' when no claim
	 * stands; {@code admitted:<instant>} when that instant's probe was admitted), {@value #BAD} for a key that is not
	 * the fleet's.
	 */
	READ_PROBES(Lua.PROBES + """
			local out = {}
			for i = 1, #KEYS do
			  local until_, owner = claim(KEYS[i])
			  if until_ == nil then
			    out[i] = 'bad'
			  elseif owner == '' then
			    out[i] = ''
			  elseif owner == '!admitted' then
			    out[i] = 'admitted:' .. string.format('%.0f', until_)
			  else
			    out[i] = string.format('%.0f', until_)
			  end
			end
			return out
			"""),

	/**
	 * Reports the probe answered, if the claim is still this instance's claim for that instant, so the instances
	 * holding behind it go: removes the claim, or, when the provider admitted the probe, replaces it with
	 * {@code instant:}{@value #ADMITTED} for the rest of its lease (so they open, as the owner did) and ends the fleet's
	 * cooldown if it is still that instant (a later refusal, stored since, stands). KEYS: the probe key, the
	 * provider's cooldown key. ARGV: instance id, the instant, {@code 1} if admitted. Returns {claims answered}.
	 */
	END_PROBE("""
			local v = redis.call('GET', KEYS[1])
			if v ~= ARGV[2] .. ':' .. ARGV[1] then
			  return {'0'}
			end
			if ARGV[3] ~= '1' then
			  return {tostring(redis.call('DEL', KEYS[1]))}
			end
			local ttl = redis.call('PTTL', KEYS[1])
			if ttl < 1 then ttl = 1 end
			redis.call('SET', KEYS[1], ARGV[2] .. ':!admitted', 'PX', ttl)
			if redis.call('TYPE', KEYS[2]).ok == 'string' and tonumber(redis.call('GET', KEYS[2])) == tonumber(ARGV[2]) then
			  redis.call('DEL', KEYS[2])
			end
			return {'1'}
			"""),

	/**
	 * Ends a provider's fleet cooldown: an operator's reset. KEYS: the cooldown. Returns {keys removed}.
	 */
	END_COOLDOWN("""
			return {tostring(redis.call('DEL', KEYS[1]))}
			""");

	/** What a script answers in place of a key whose type or value is not what the fleet writes there. */
	static final String BAD = "bad";

	/** The owner of a probe claim whose probe the provider admitted: never an instance's id (those never start with '!'). */
	static final String ADMITTED = "!admitted";

	private final String source;

	private final String sha;

	FleetScript(String source) {
		this.source = source;
		this.sha = sha1(source);
	}

	String source() {
		return this.source;
	}

	String sha() {
		return this.sha;
	}

	private static String sha1(String source) {
		try {
			return HexFormat.of()
				.formatHex(MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1 is required of every Java platform", ex);
		}
	}

	/** Shared script fragments. */
	private static final class Lua {

		static final String NOW = """
				local clock = redis.call('TIME')
				local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
				""";

		static final String BUCKETS = NOW + """
				local function shown(tokens)
				  if tokens == nil then return 'bad' end
				  return tostring(tokens)
				end
				local function level(key, cap, refill)
				  local kind = redis.call('TYPE', key).ok
				  if kind == 'none' then return cap end
				  if kind ~= 'hash' then return nil end
				  local v = redis.call('HMGET', key, 't', 'at')
				  local t, at = tonumber(v[1]), tonumber(v[2])
				  if t == nil or at == nil or t ~= t or at ~= at or math.abs(t) == math.huge or math.abs(at) == math.huge then
				    return nil
				  end
				  local elapsed = now - at
				  if elapsed < 0 then elapsed = 0 end
				  return math.max(0, math.min(cap, t + refill * elapsed / 1000000))
				end
				local function store(key, tokens, cap, refill, ttl)
				  if tokens >= cap then
				    redis.call('DEL', key)
				    return
				  end
				  redis.call('HSET', key, 't', tostring(tokens), 'at', string.format('%.0f', now))
				  if refill > 0 then
				    ttl = math.min(ttl, math.ceil((cap - tokens) / refill * 1000) + 1000)
				  end
				  redis.call('PEXPIRE', key, ttl)
				end
				""";

		/**
		 * The provider's and the global bucket's levels ({@code p}, {@code g}), read from KEYS 1 and 2 with the TTL and
		 * both buckets' capacity and refill from ARGV 1 to 5, as {@link FleetScript#ACQUIRE} and
		 * {@link FleetScript#LEASE} take them.
		 */
		static final String BOTH_LEVELS = BUCKETS + """
				local ttl = tonumber(ARGV[1])
				local pcap, prefill = tonumber(ARGV[2]), tonumber(ARGV[3])
				local gcap, grefill = tonumber(ARGV[4]), tonumber(ARGV[5])
				local p = level(KEYS[1], pcap, prefill)
				local g = level(KEYS[2], gcap, grefill)
				""";

		/**
		 * A probe claim at a key: (instant, owner); (0, '') when there is none; nil when the key holds anything but
		 * {@code instant:owner}.
		 */
		static final String PROBES = NOW + """
				local function claim(key)
				  local kind = redis.call('TYPE', key).ok
				  if kind == 'none' then return 0, '' end
				  if kind ~= 'string' then return nil, nil end
				  local value = redis.call('GET', key)
				  local sep = string.find(value, ':', 1, true)
				  if sep == nil then return nil, nil end
				  local until_ = tonumber(string.sub(value, 1, sep - 1))
				  local owner = string.sub(value, sep + 1)
				  if until_ == nil or until_ ~= until_ or owner == '' then return nil, nil end
				  return until_, owner
				end
				""";

		/** An instant at a key: 0 when there is none, nil when the key holds anything but a number. */
		static final String COOLDOWNS = NOW + """
				local function instant(key)
				  local kind = redis.call('TYPE', key).ok
				  if kind == 'none' then return 0 end
				  if kind ~= 'string' then return nil end
				  local value = tonumber(redis.call('GET', key))
				  if value == nil or value ~= value or value < 0 or value == math.huge then return nil end
				  return value
				end
				""";

	}

}

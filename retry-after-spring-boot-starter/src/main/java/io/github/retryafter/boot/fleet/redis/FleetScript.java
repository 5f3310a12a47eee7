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
 */
enum FleetScript {

	/**
	 * Takes one token from the provider's bucket and one from the global bucket, or neither. KEYS: provider bucket,
	 * global bucket. ARGV: key TTL ms, provider capacity, provider refill/s, global capacity, global refill/s. Returns
	 * {taken (1 or 0), provider tokens, global tokens}.
	 */
	ACQUIRE(Lua.BUCKETS + """
			local ttl = tonumber(ARGV[1])
			local pcap, prefill = tonumber(ARGV[2]), tonumber(ARGV[3])
			local gcap, grefill = tonumber(ARGV[4]), tonumber(ARGV[5])
			local p = level(KEYS[1], pcap, prefill)
			local g = level(KEYS[2], gcap, grefill)
			if p < 1 or g < 1 then
			  return {'0', tostring(p), tostring(g)}
			end
			store(KEYS[1], p - 1, pcap, prefill, ttl)
			store(KEYS[2], g - 1, gcap, grefill, ttl)
			return {'1', tostring(p - 1), tostring(g - 1)}
			"""),

	/**
	 * Adds the batched deposits (and refunds) and reads every bucket. KEYS: global bucket, then each provider's
	 * bucket. ARGV: key TTL ms, global capacity, refill/s, deposit, then capacity, refill/s, deposit per provider.
	 * Returns {global tokens, provider tokens...}.
	 */
	SYNC(Lua.BUCKETS + """
			local ttl = tonumber(ARGV[1])
			local out = {}
			for i = 1, #KEYS do
			  local cap, refill, dep = tonumber(ARGV[3 * i - 1]), tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1])
			  local tokens = level(KEYS[i], cap, refill)
			  if dep > 0 then
			    tokens = math.min(cap, tokens + dep)
			    store(KEYS[i], tokens, cap, refill, ttl)
			  end
			  out[i] = tostring(tokens)
			end
			return out
			"""),

	/**
	 * Extends a provider's cooldown: stores max(existing, now + floor), never shorter. KEYS: cooldown key. ARGV: floor
	 * in microseconds, expiry margin ms. Returns {Redis now, cooldown until}, both in microseconds.
	 */
	EXTEND_COOLDOWN(Lua.NOW + """
			local current = tonumber(redis.call('GET', KEYS[1]) or '0')
			local wanted = now + tonumber(ARGV[1])
			if wanted > current then current = wanted end
			local ttl = math.ceil((current - now) / 1000) + tonumber(ARGV[2])
			redis.call('SET', KEYS[1], string.format('%.0f', current), 'PX', ttl)
			return {string.format('%.0f', now), string.format('%.0f', current)}
			"""),

	/**
	 * Reads the cooldowns. KEYS: cooldown keys. Returns {Redis now, until or '' per key}, in microseconds.
	 */
	READ_COOLDOWNS(Lua.NOW + """
			local out = {string.format('%.0f', now)}
			for i = 1, #KEYS do
			  out[i + 1] = redis.call('GET', KEYS[i]) or ''
			end
			return out
			""");

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
				local function level(key, cap, refill)
				  local v = redis.call('HMGET', key, 't', 'at')
				  if not v[1] then return cap end
				  local elapsed = now - tonumber(v[2])
				  if elapsed < 0 then elapsed = 0 end
				  return math.min(cap, tonumber(v[1]) + refill * elapsed / 1000000)
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

	}

}

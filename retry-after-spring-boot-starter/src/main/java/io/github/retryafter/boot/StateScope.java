package io.github.retryafter.boot;

/**
 * Whose shared state (the cooldown and adaptive rate of pacing, and the retry-budget bucket) a provider's requests
 * use: set per provider as {@code retry.after.providers.<name>.scope}.
 */
public enum StateScope {

	/**
	 * One state for every host of the provider: a {@code Retry-After} from one pauses them all, which is what listing
	 * hosts under one provider means. The default of a configured provider.
	 */
	PROVIDER,

	/**
	 * One state per origin ({@code scheme://host:port}): one host's trouble never pauses or starves another. The
	 * default of {@code default}, the provider of every host no provider names. Bounded by
	 * {@code retry.after.max-origins}; the least recently used origin is forgotten and starts afresh.
	 */
	ORIGIN

}

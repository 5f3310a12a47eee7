package io.github.retryafter.fleet;

import java.lang.System.Logger.Level;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The store's keys that hold a value the fleet did not write (garbage, a wrong type), as this instance meets them:
 * each report counted, each key logged once until it is valid again. The budget and the cooldown report their keys
 * here; a store reports its own (the members' key, a message on its channel that is not the fleet's). Thread-safe.
 */
public final class FleetKeys {

	private static final System.Logger logger = System.getLogger(FleetKeys.class.getName());

	private final FleetLink link;

	private final String storeName;

	private final LongAdder fallbacks = new LongAdder();

	// this instance's keys that fell back and were logged: at most the fleet's keys (providers x 3 + 2)
	private final Set<String> badKeys = ConcurrentHashMap.newKeySet();

	FleetKeys(FleetLink link, String storeName) {
		this.link = Objects.requireNonNull(link, "link");
		this.storeName = Objects.requireNonNull(storeName, "storeName");
	}

	/**
	 * Returns how many times a key fell back to local state because its value was not the fleet's, with the messages
	 * that were not the fleet's.
	 * @return the count since start
	 */
	public long fallbacks() {
		return this.fallbacks.sum();
	}

	/**
	 * Reports that the store holds a value at {@code bucket}'s key that the fleet did not write: counted and logged
	 * once until {@link #bucketValid}.
	 * @param bucket the bucket
	 */
	public void bucketInvalid(FleetBucket bucket) {
		storeKeyInvalid(this.link.keyName("budget", bucket.keyName()));
	}

	/**
	 * Reports that {@code bucket}'s key holds the fleet's value again.
	 * @param bucket the bucket
	 */
	public void bucketValid(FleetBucket bucket) {
		storeKeyValid(this.link.keyName("budget", bucket.keyName()));
	}

	/**
	 * Reports that the store holds a value at a provider's {@code key} that the fleet did not write: counted and
	 * logged once until {@link #keyValid}.
	 * @param key which of the provider's keys
	 * @param provider the provider
	 */
	public void keyInvalid(FleetStore.ProviderKey key, String provider) {
		storeKeyInvalid(this.link.keyName(kind(key), provider));
	}

	/**
	 * Reports that a provider's {@code key} holds the fleet's value again.
	 * @param key which of the provider's keys
	 * @param provider the provider
	 */
	public void keyValid(FleetStore.ProviderKey key, String provider) {
		storeKeyValid(this.link.keyName(kind(key), provider));
	}

	private static String kind(FleetStore.ProviderKey key) {
		return (key == FleetStore.ProviderKey.COOLDOWN) ? "cooldown" : "backlog";
	}

	/**
	 * Reports that the store's key {@code name} holds a value the fleet did not write: counted, and logged once until
	 * {@link #storeKeyValid} for the same name.
	 * @param name the key's name in the store
	 */
	public void storeKeyInvalid(String name) {
		this.fallbacks.increment();
		if (this.badKeys.add(name)) {
			logger.log(Level.WARNING, this.storeName + " key '" + name + "' holds a value the fleet did not write (a "
					+ "wrong type or not a number): this instance decides for it locally until the key is valid again; "
					+ "delete the key to let the fleet write it");
		}
	}

	/**
	 * Reports that the store's key {@code name} holds the fleet's value again.
	 * @param name the key's name in the store
	 */
	public void storeKeyValid(String name) {
		if (!this.badKeys.isEmpty() && this.badKeys.remove(name)) {
			logger.log(Level.INFO, this.storeName + " key '" + name + "' is valid again");
		}
	}

	/** Counts a message the store pushed that was not the fleet's with the keys' fallbacks (the caller logs). */
	public void messageIgnored() {
		this.fallbacks.increment();
	}

}

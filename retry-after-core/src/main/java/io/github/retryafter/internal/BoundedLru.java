package io.github.retryafter.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * A map of at most {@code capacity} entries, created on first use, that forgets its least recently used entries when
 * a new one would take it past its capacity. Built for state kept per remote origin: the origins a client meets are
 * chosen by whoever supplies its URLs, so the map must stay bounded whatever they are, and an evicted entry simply
 * starts fresh the next time it is used.
 * <p>
 * Recency is counted in insertions: each new entry advances a shared counter, and a use stamps the entry with the
 * counter's value, so "least recently used" means "not used since the earliest insertion". A read of an entry that
 * exists takes no lock and writes nothing while no entry was created since its last use (the common case: a client
 * talking to the same hosts), so requests to one origin never contend on a shared write. Creating one may evict: the
 * eviction runs under a lock, scans the entries once and drops the oldest sixteenth of the capacity (at least one),
 * so a stream of new keys costs one scan per {@code capacity / 16} insertions. Thread-safe.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class BoundedLru<K, V> {

	private final int capacity;

	private final Function<K, V> factory;

	private final ConcurrentHashMap<K, Entry<V>> entries = new ConcurrentHashMap<>();

	private final AtomicLong clock = new AtomicLong();

	private final Object evictionLock = new Object();

	/**
	 * Creates an empty map.
	 * @param capacity the most entries it holds, at least 1
	 * @param factory creates the value of a key on its first use
	 * @throws IllegalArgumentException if {@code capacity} is below 1
	 */
	public BoundedLru(int capacity, Function<K, V> factory) {
		this.capacity = checkCapacity(capacity, "capacity");
		this.factory = Objects.requireNonNull(factory, "factory");
	}

	/**
	 * Checks a bound given for one of these maps (the {@code maxOrigins} of the builders that make one).
	 * @param capacity the bound
	 * @param name what the caller calls it, for the message
	 * @return {@code capacity}
	 * @throws IllegalArgumentException if {@code capacity} is below 1
	 */
	public static int checkCapacity(int capacity, String name) {
		if (capacity < 1) {
			throw new IllegalArgumentException(name + " must be at least 1 but was " + capacity);
		}
		return capacity;
	}

	/**
	 * Returns the value of {@code key}, creating it (and evicting the least recently used entries if the map is full)
	 * when absent, and marks it as used now.
	 * @param key the key
	 * @return its value
	 */
	public V get(K key) {
		Entry<V> entry = this.entries.get(key);
		if (entry == null) {
			entry = this.entries.computeIfAbsent(key,
					(k) -> new Entry<>(this.factory.apply(k), this.clock.incrementAndGet()));
			if (this.entries.size() > this.capacity) {
				evict(entry);
			}
		}
		long now = this.clock.get();
		if (entry.lastUse != now) {
			entry.lastUse = now;
		}
		return entry.value;
	}

	/**
	 * Returns the value of {@code key} if it is held, without creating it or marking it as used.
	 * @param key the key
	 * @return its value, or {@code null}
	 */
	public V peek(K key) {
		Entry<V> entry = this.entries.get(key);
		return (entry != null) ? entry.value : null;
	}

	/**
	 * Returns a snapshot of the values held now.
	 * @return the values, in no particular order
	 */
	public Collection<V> values() {
		List<V> values = new ArrayList<>(this.entries.size());
		this.entries.values().forEach((entry) -> values.add(entry.value));
		return values;
	}

	/**
	 * Returns how many entries are held.
	 * @return the count, never above the capacity once a creation has returned
	 */
	public int size() {
		return this.entries.size();
	}

	/**
	 * Returns the most entries held.
	 * @return the capacity
	 */
	public int capacity() {
		return this.capacity;
	}

	private void evict(Entry<V> keep) {
		synchronized (this.evictionLock) {
			int excess = this.entries.size() - this.capacity;
			if (excess <= 0) {
				return;
			}
			int drop = Math.max(excess, Math.max(1, this.capacity / 16));
			List<Map.Entry<K, Entry<V>>> all = new ArrayList<>(this.entries.entrySet());
			all.removeIf((each) -> each.getValue() == keep);
			all.sort((a, b) -> Long.compare(a.getValue().lastUse, b.getValue().lastUse));
			for (int i = 0; i < Math.min(drop, all.size()); i++) {
				this.entries.remove(all.get(i).getKey(), all.get(i).getValue());
			}
		}
	}

	private static final class Entry<V> {

		private final V value;

		private volatile long lastUse;

		Entry(V value, long createdAt) {
			this.value = value;
			this.lastUse = createdAt;
		}

	}

}

package io.github.retryafter.boot.fleet;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.retryafter.boot.ProviderSettings;
import io.github.retryafter.boot.StateScope;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.request.RequestPreparer;

/**
 * The hosts this instance called that its fleet store does not share: hosts no provider lists under
 * {@code retry.after.providers.<name>.hosts}, whose calls use the {@code default} provider and keep its budget and
 * cooldown per instance (unless {@code default} itself is kept as one state, which the fleet shares: then nothing is
 * recorded). {@link #announce} logs once, at INFO, what the fleet shares; each host is then logged once, at WARN, with
 * the property that would share it. Scope: this instance. Bound: at most {@code maxHosts} hosts are remembered, the
 * first ones, never forgotten; beyond them one line says further hosts are not listed, and they are only counted.
 * The request preparer tells it of a host when it looks the host's route up, never on a request to a host it knows.
 * Thread-safe.
 */
public final class UnsharedHosts implements RequestPreparer.UnmatchedHostListener {

	/** The longest host name kept, a DNS name's longest; a longer one is cut. */
	static final int MAX_HOST_LENGTH = 253;

	private static final Log logger = LogFactory.getLog(UnsharedHosts.class);

	private final String store;

	private final int maxHosts;

	private final boolean recording;

	// per host not shared, as first called: at most maxHosts (a slot is claimed before a host is added), never dropped
	private final Set<String> hosts = ConcurrentHashMap.newKeySet();

	private final AtomicInteger claimed = new AtomicInteger();

	// hosts beyond the bound: counted at each route lookup, so about once per host (again if the preparer forgot it)
	private final AtomicLong notListed = new AtomicLong();

	/**
	 * Creates a recorder.
	 * @param store the fleet store's name, as the messages say it ({@code redis})
	 * @param maxHosts the most hosts remembered, at least 0
	 * @param recording whether to record at all: {@code false} when the {@code default} provider is shared
	 */
	public UnsharedHosts(String store, int maxHosts, boolean recording) {
		this.store = Objects.requireNonNull(store, "store");
		if (maxHosts < 0) {
			throw new IllegalArgumentException("maxHosts must not be negative but was " + maxHosts);
		}
		this.maxHosts = maxHosts;
		this.recording = recording;
	}

	/**
	 * Logs once, at INFO, which providers the fleet store shares (by name, with their hosts) and what happens to
	 * calls to any other host, and returns the recorder of those hosts: recording unless {@code default} is kept as
	 * one state.
	 * @param store the fleet store's name ({@code redis})
	 * @param providers every configured provider, {@code default} included
	 * @param maxHosts the most hosts remembered ({@code retry.after.max-origins})
	 * @return the recorder
	 */
	public static UnsharedHosts announce(String store, Collection<ProviderSettings> providers, int maxHosts) {
		boolean defaultShared = providers.stream()
			.anyMatch((provider) -> OperationSpec.DEFAULT_PROVIDER.equals(provider.name())
					&& provider.scope() == StateScope.PROVIDER);
		logger.info(sharing(store, providers, defaultShared));
		return new UnsharedHosts(store, maxHosts, !defaultShared);
	}

	static String sharing(String store, Collection<ProviderSettings> providers, boolean defaultShared) {
		List<String> shared = new ArrayList<>();
		List<String> perOrigin = new ArrayList<>();
		for (ProviderSettings provider : providers) {
			if (!OperationSpec.DEFAULT_PROVIDER.equals(provider.name())) {
				String named = provider.name() + " " + provider.hosts();
				(provider.scope() == StateScope.PROVIDER ? shared : perOrigin).add(named);
			}
		}
		StringBuilder text = new StringBuilder("The fleet store (").append(store)
			.append(") shares the retry budget and cooldown of ")
			.append(shared.isEmpty() ? "no named provider" : "providers " + String.join(", ", shared));
		if (!perOrigin.isEmpty()) {
			text.append("; providers kept per origin keep theirs per instance: ").append(String.join(", ", perOrigin));
		}
		if (defaultShared) {
			return text.append("; calls to any other host use the 'default' provider, whose budget and cooldown the ")
				.append("fleet shares too (retry.after.providers.default.scope=provider)")
				.toString();
		}
		return text.append("; calls to any other host use the 'default' provider and keep their budget and cooldown ")
			.append("per instance (to share a host's, list it under retry.after.providers.<name>.hosts)")
			.toString();
	}

	/**
	 * Records a host whose calls use the {@code default} provider, and warns once for it; beyond the bound, counts
	 * it and says once that further hosts are not listed. Never blocks on more than a concurrent set.
	 * @param host the host in lower case
	 */
	@Override
	public void unmatched(String host) {
		if (!this.recording) {
			return;
		}
		String kept = (host.length() > MAX_HOST_LENGTH) ? host.substring(0, MAX_HOST_LENGTH) : host;
		if (this.hosts.contains(kept)) {
			return;
		}
		if (this.claimed.getAndUpdate((taken) -> (taken < this.maxHosts) ? taken + 1 : taken) >= this.maxHosts) {
			if (this.notListed.getAndIncrement() == 0) {
				logger.warn("More than " + this.maxHosts + " hosts outside every named provider were called; further "
						+ "ones are neither logged nor listed (retry.after.max-origins bounds the list; the retryafter "
						+ "endpoint counts them in fleet.unsharedHostsNotListed)");
			}
			return;
		}
		if (this.hosts.add(kept)) {
			logger.warn("Calls to host '" + kept + "' use the 'default' provider, whose retry budget and cooldown the "
					+ "fleet store (" + this.store + ") does not share: each instance keeps its own. To share them, "
					+ "list the host under retry.after.providers.<name>.hosts");
		}
		else {
			// another thread recorded it first
			this.claimed.decrementAndGet();
		}
	}

	/**
	 * Returns the hosts recorded, at most {@link #maxHosts()}.
	 * @return a snapshot, sorted
	 */
	public List<String> hosts() {
		return this.hosts.stream().sorted().toList();
	}

	/**
	 * Returns how many further hosts were seen once the bound was reached: a host is counted each time its route is
	 * looked up, which is once unless the request preparer forgot it.
	 * @return the count
	 */
	public long notListed() {
		return this.notListed.get();
	}

	/**
	 * Returns the most hosts recorded.
	 * @return the bound
	 */
	public int maxHosts() {
		return this.maxHosts;
	}

}

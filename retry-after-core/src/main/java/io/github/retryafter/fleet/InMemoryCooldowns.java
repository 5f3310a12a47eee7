package io.github.retryafter.fleet;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The cooldown side of {@link InMemoryFleetStore}: each provider's cooldown instant, probe claim and backlog reports,
 * with the arithmetic of the Redis store's scripts ({@code EXTEND_COOLDOWN}, {@code CLAIM_PROBE}, {@code END_PROBE},
 * {@code BACKLOGS}...). Times are microseconds on the store's clock; a record expires as its Redis key would. Not
 * thread-safe: the store calls it under its lock.
 */
final class InMemoryCooldowns {

	/** How long a cooldown's record outlives its instant, as the Redis store's keys do. */
	private static final long EXPIRY_MARGIN_MILLIS = 1000;

	/** The owner of a claim whose probe the provider admitted. */
	private static final String ADMITTED = "!admitted";

	// per configured provider (the names come from configuration, never from a response): its cooldown instant,
	// dropped EXPIRY_MARGIN_MILLIS after it as the Redis key expires
	private final Map<String, Timed> cooldowns = new HashMap<>();

	// per configured provider: the claim on the probe after its cooldown, one at a time
	private final Map<String, Claim> claims = new HashMap<>();

	// per configured provider, per member instance: its last report; a report older than the window no longer counts
	private final Map<String, Map<String, Report>> backlogs = new HashMap<>();

	// configured providers whose cooldown holds a value the fleet did not write (a test's doing)
	private final Set<String> invalidCooldowns = new HashSet<>();

	private final Set<String> invalidBacklogs = new HashSet<>();

	void corrupt(FleetStore.ProviderKey key, String provider) {
		((key == FleetStore.ProviderKey.COOLDOWN) ? this.invalidCooldowns : this.invalidBacklogs).add(provider);
	}

	/** Extends as {@code EXTEND_COOLDOWN} does, and says whether the instant moved later (the script then publishes). */
	Extension extend(String provider, Duration remaining, Duration cap, long now) {
		if (this.invalidCooldowns.contains(provider)) {
			return new Extension(new FleetStore.Cooldown(now, OptionalLong.empty()), false);
		}
		long capMicros = Math.max(1, cap.toNanos() / 1000);
		long floor = (remaining.toNanos() + 999) / 1000;
		long existing = until(provider, now);
		long wanted = now + Math.min(floor, capMicros);
		long current = Math.min(Math.max(existing, wanted), now + capMicros);
		long ttlMillis = ceilMillis(current - now) + EXPIRY_MARGIN_MILLIS;
		this.cooldowns.put(provider, new Timed(current, now + ttlMillis * 1000));
		return new Extension(new FleetStore.Cooldown(now, OptionalLong.of(current)), current > existing);
	}

	List<FleetStore.Cooldown> read(List<String> providers, long now) {
		List<FleetStore.Cooldown> read = new ArrayList<>(providers.size());
		for (String provider : providers) {
			read.add(new FleetStore.Cooldown(now, this.invalidCooldowns.contains(provider) ? OptionalLong.empty()
					: OptionalLong.of(until(provider, now))));
		}
		return read;
	}

	void end(String provider) {
		this.invalidCooldowns.remove(provider);
		this.cooldowns.remove(provider);
	}

	FleetStore.ProbeClaim claim(String instanceId, String provider, long wanted, Duration lease, long now) {
		Claim standing = claim(provider, now);
		if (standing != null && standing.until() >= wanted && !outlived(standing, provider, wanted, now)) {
			FleetStore.Claimant claimant = standing.owner().equals(instanceId) ? FleetStore.Claimant.THIS_INSTANCE
					: ADMITTED.equals(standing.owner()) ? FleetStore.Claimant.ADMITTED
							: FleetStore.Claimant.ANOTHER_INSTANCE;
			return new FleetStore.ProbeClaim(claimant, standing.until(), now);
		}
		long leaseMillis = Math.max(1, lease.toNanos() / 1000) / 1000;
		long ttlMillis = Math.max(1, ceilMillis(wanted - now) + leaseMillis);
		this.claims.put(provider, new Claim(wanted, instanceId, now + ttlMillis * 1000));
		return new FleetStore.ProbeClaim(FleetStore.Claimant.THIS_INSTANCE, wanted, now);
	}

	/**
	 * Whether a standing claim for a later instant than {@code wanted} is no longer the fleet's: {@code wanted} is the
	 * provider's cooldown instant now and the claim's is not, so the claim was made before the store's clock stepped
	 * back (its instant is still ahead, and it would otherwise answer every claim of the fleet until its clock passes
	 * it). As {@code CLAIM_PROBE} does.
	 */
	private boolean outlived(Claim standing, String provider, long wanted, long now) {
		return standing.until() > wanted && !this.invalidCooldowns.contains(provider) && until(provider, now) == wanted;
	}

	List<FleetStore.ProbeState> probes(List<String> providers, long now) {
		List<FleetStore.ProbeState> read = new ArrayList<>(providers.size());
		for (String provider : providers) {
			Claim standing = claim(provider, now);
			read.add((standing == null) ? FleetStore.ProbeState.NONE
					: new FleetStore.ProbeState(standing.until(), ADMITTED.equals(standing.owner())));
		}
		return read;
	}

	void endProbe(String instanceId, String provider, long instant, boolean admitted, long now) {
		Claim standing = claim(provider, now);
		if (standing == null || standing.until() != instant || !standing.owner().equals(instanceId)) {
			return;
		}
		if (!admitted) {
			this.claims.remove(provider);
			return;
		}
		this.claims.put(provider, new Claim(instant, ADMITTED, Math.max(standing.expiresAt(), now + 1000)));
		if (!this.invalidCooldowns.contains(provider) && until(provider, now) == instant) {
			this.cooldowns.remove(provider);
		}
	}

	List<Optional<FleetStore.Backlogs>> report(String instanceId, Duration window, List<FleetStore.BacklogReport> reports,
			long now) {
		long oldest = now - window.toMillis() * 1000;
		List<Optional<FleetStore.Backlogs>> sums = new ArrayList<>(reports.size());
		for (FleetStore.BacklogReport report : reports) {
			if (this.invalidBacklogs.contains(report.provider())) {
				sums.add(Optional.empty());
				continue;
			}
			Map<String, Report> fields = this.backlogs.computeIfAbsent(report.provider(), (p) -> new LinkedHashMap<>());
			if (report.backlog()) {
				fields.put(instanceId, new Report(now, report.queued(), report.rate()));
			}
			else {
				fields.remove(instanceId);
			}
			fields.values().removeIf((field) -> field.at() < oldest);
			long queued = 0;
			double rate = 0;
			for (Report field : fields.values()) {
				queued += field.queued();
				rate += field.rate();
			}
			sums.add(Optional.of(new FleetStore.Backlogs(fields.size(), queued, rate)));
		}
		return sums;
	}

	/** A provider's cooldown instant at {@code now}: {@code 0} when none stands or it expired. */
	private long until(String provider, long now) {
		Timed cooldown = this.cooldowns.get(provider);
		if (cooldown == null || now >= cooldown.expiresAt()) {
			this.cooldowns.remove(provider);
			return 0;
		}
		return cooldown.until();
	}

	private Claim claim(String provider, long now) {
		Claim claim = this.claims.get(provider);
		if (claim != null && now >= claim.expiresAt()) {
			this.claims.remove(provider);
			return null;
		}
		return claim;
	}

	private static long ceilMillis(long micros) {
		return Math.floorDiv(micros + 999, 1000);
	}

	/** What {@link #extend} stored, and whether it moved the instant later: only then is it announced. */
	record Extension(FleetStore.Cooldown cooldown, boolean extended) {
	}

	private record Timed(long until, long expiresAt) {
	}

	private record Claim(long until, String owner, long expiresAt) {
	}

	private record Report(long at, int queued, double rate) {
	}

}

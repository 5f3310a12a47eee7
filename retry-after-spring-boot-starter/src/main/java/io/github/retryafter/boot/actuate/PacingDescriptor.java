package io.github.retryafter.boot.actuate;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;

import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.pacing.ProviderGate;

/**
 * A provider's gate.
 * <p>
 * Immutable: a snapshot written to JSON by the {@code retryafter} endpoint, as the {@code pacing} of a
 * {@link RetryAfterEndpoint.ProviderDescriptor}.
 *
 * @param mode {@code HOLD}, {@code FAIL_FAST} or {@code OFF}
 * @param minRate the lowest adaptive rate, requests per second
 * @param maxRate the rate at which pacing lets go, requests per second
 * @param burst the requests each lane may send back to back
 * @param freshShare the share of the rate kept for fresh requests
 * @param decreaseFactor what a throttle multiplies the rate by
 * @param rate the rate in force (the lowest of its origins' for a provider kept per origin), or {@code null} while
 * the provider is not paced
 * @param cooldownRemaining how long the gate stays closed (its longest-closed origin's), zero when open
 * @param notBefore the instant the gate opens on the wall clock (ISO-8601), the instant the provider named and
 * what an outer retry layer must not retry before; {@code null} when open
 * @param queued requests waiting at the gate (at all its origins')
 * @param maxCooldown the longest a cooldown may close the gate
 * @param activeOrigins the origins holding requests back now, at most
 * {@value RetryAfterEndpoint#MAX_LISTED_ORIGINS}, longest cooldown first; empty for a provider that shares one state
 */
public record PacingDescriptor(String mode, double minRate, double maxRate, int burst, double freshShare,
		double decreaseFactor, Double rate, String cooldownRemaining, String notBefore, int queued,
		String maxCooldown, List<OriginDescriptor> activeOrigins) {

	static PacingDescriptor of(RetryAfterProviders.Provider provider) {
		PacingSettings settings = provider.engine().policy().pacing();
		List<OriginDescriptor> origins = provider.activeGates()
			.stream()
			.filter((gate) -> gate.scope().perOrigin())
			.sorted((a, b) -> b.cooldownRemaining().compareTo(a.cooldownRemaining()))
			.limit(RetryAfterEndpoint.MAX_LISTED_ORIGINS)
			.map((gate) -> OriginDescriptor.of(gate, provider.engine().planner().wallClock()))
			.toList();
		return new PacingDescriptor(settings.mode().name(), settings.minRate(), settings.maxRate(), settings.burst(),
				settings.freshShare(), settings.decreaseFactor(),
				provider.rate().isPresent() ? provider.rate().getAsDouble() : null,
				provider.cooldownRemaining().toString(),
				notBefore(provider.cooldownRemaining(), provider.engine().planner().wallClock()), provider.queued(),
				settings.maxCooldown().toString(), origins);
	}

	/** The wall-clock instant a cooldown ends, or {@code null} when there is none. */
	static String notBefore(Duration remaining, InstantSource clock) {
		return remaining.isZero() ? null : clock.instant().plus(remaining).toString();
	}

	/**
	 * One origin of a provider kept per origin that holds requests back now.
	 *
	 * @param origin the origin, {@code scheme://host:port}
	 * @param rate the rate in force, or {@code null} while it is not paced
	 * @param cooldownRemaining how long its gate stays closed, zero when open
	 * @param notBefore the instant its gate opens on the wall clock (ISO-8601), {@code null} when open
	 * @param probing whether a probe is out after its cooldown and the others wait for its answer
	 * @param queued requests waiting at its gate
	 */
	public record OriginDescriptor(String origin, Double rate, String cooldownRemaining, String notBefore,
			boolean probing, int queued) {

		static OriginDescriptor of(ProviderGate gate, InstantSource clock) {
			Duration remaining = gate.cooldownRemaining();
			return new OriginDescriptor(gate.scope().origin().orElse(""),
					gate.rate().isPresent() ? gate.rate().getAsDouble() : null, remaining.toString(),
					PacingDescriptor.notBefore(remaining, clock), gate.probing(), gate.queued());
		}

	}

}

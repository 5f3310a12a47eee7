package io.github.retryafter.sample;

import java.time.Duration;
import java.util.Objects;

/**
 * How the simulated provider behaves during one scenario. Immutable.
 *
 * @param outage how long from the scenario's start every request gets {@link #outageStatus()}; zero for none
 * @param outageStatus the status answered during the outage, {@code 503} or {@code 429}
 * @param retryAfter the wait announced in {@code Retry-After} during the outage
 * @param form how {@code Retry-After} is written
 * @param clockSkew how far the provider's clock, and so its {@code Date} header, is off the real time; signed
 * @param rateLimitPerSecond requests admitted per second by a token bucket holding as many; zero for no limit. Excess
 * requests get {@code 429} with {@code Retry-After: 1}
 * @param holdDuringOutage whether a request arriving during the outage is answered only when the outage ends, as a
 * gateway whose queue times out answers everything it held at once; otherwise it is answered at once
 */
public record ProviderConditions(Duration outage, int outageStatus, Duration retryAfter, RetryAfterForm form,
		Duration clockSkew, int rateLimitPerSecond, boolean holdDuringOutage) {

	/** A provider that answers {@code 200} to everything, on a correct clock. */
	public static final ProviderConditions HEALTHY = new ProviderConditions(Duration.ZERO, 503, Duration.ofSeconds(1),
			RetryAfterForm.DELAY_SECONDS, Duration.ZERO, 0, false);

	/**
	 * Checks the values.
	 * @throws IllegalArgumentException naming the bad value
	 */
	public ProviderConditions {
		Objects.requireNonNull(outage, "outage");
		Objects.requireNonNull(retryAfter, "retryAfter");
		Objects.requireNonNull(form, "form");
		Objects.requireNonNull(clockSkew, "clockSkew");
		if (outage.isNegative()) {
			throw new IllegalArgumentException("outage must not be negative but was " + outage);
		}
		if (outageStatus != 429 && outageStatus != 503) {
			throw new IllegalArgumentException("outageStatus must be 429 or 503 but was " + outageStatus);
		}
		if (retryAfter.isNegative() || retryAfter.toMillis() % 1000 != 0) {
			throw new IllegalArgumentException("retryAfter must be whole non-negative seconds but was " + retryAfter);
		}
		if (rateLimitPerSecond < 0) {
			throw new IllegalArgumentException("rateLimitPerSecond must not be negative but was " + rateLimitPerSecond);
		}
	}

	/**
	 * Returns these conditions with the provider's clock off by {@code skew}.
	 * @param skew the skew
	 * @return new conditions
	 */
	public ProviderConditions withClockSkew(Duration skew) {
		return new ProviderConditions(this.outage, this.outageStatus, this.retryAfter, this.form, skew,
				this.rateLimitPerSecond, this.holdDuringOutage);
	}

	/**
	 * How the simulated provider writes {@code Retry-After} (RFC 9110 §10.2.3).
	 */
	public enum RetryAfterForm {

		/** {@code Retry-After: 2}: seconds from receipt. */
		DELAY_SECONDS,

		/** {@code Retry-After: Fri, 31 Dec 1999 23:59:59 GMT}: an instant on the provider's own clock. */
		HTTP_DATE

	}

}

package io.github.retryafter.bench;

import java.util.Locale;
import java.util.OptionalDouble;

import io.github.retryafter.pacing.GateHold;
import io.github.retryafter.pacing.PacingMode;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.pacing.ProviderGate;
import io.github.retryafter.pacing.ProviderGate.Admission;

/**
 * Benchmark-only: {@link ProviderGate}'s cooldown, adaptive rate and two-lane reservations with the gate's state in
 * plain fields guarded by the gate's own monitor (one lock per provider, never a global one) instead of an
 * {@code AtomicLong} and an immutable state swapped by compare-and-set, so {@link ContentionBenchmark} can compare the
 * two designs under contention. Only the calls the engine makes are copied: {@link #closeUntil}, {@link #onThrottle},
 * {@link #onSuccess}, {@link #admit}; refusal messages are formatted outside the lock.
 */
final class LockedProviderGate {

	private static final double NANOS_PER_SECOND = 1_000_000_000.0;

	private final String provider;

	private final PacingSettings settings;

	private long cooldownUntil;

	private boolean engaged;

	private double rate;

	private double rateBeforeDecrease;

	private long lastDecreaseNanos;

	private boolean admittedSinceDecrease;

	private long epoch;

	private long retryTat;

	private long freshTat;

	LockedProviderGate(String provider, PacingSettings settings, long nowNanos) {
		this.provider = provider;
		this.settings = settings;
		this.cooldownUntil = nowNanos;
		this.lastDecreaseNanos = nowNanos;
		this.retryTat = nowNanos;
		this.freshTat = nowNanos;
	}

	synchronized void closeUntil(long instantNanos) {
		if (instantNanos - this.cooldownUntil > 0) {
			this.cooldownUntil = instantNanos;
		}
	}

	synchronized void onThrottle(long sentAtNanos, long nowNanos) {
		if (this.engaged && (sentAtNanos - this.lastDecreaseNanos <= 0 || !this.admittedSinceDecrease)) {
			return;
		}
		double before = this.engaged ? this.rate : this.settings.maxRate();
		long restart = Math.max(nowNanos, this.cooldownUntil);
		this.engaged = true;
		this.rate = Math.max(this.settings.minRate(), before * this.settings.decreaseFactor());
		this.rateBeforeDecrease = before;
		this.lastDecreaseNanos = nowNanos;
		this.admittedSinceDecrease = false;
		this.epoch++;
		this.retryTat = restart;
		this.freshTat = restart;
	}

	synchronized void onSuccess(long nowNanos) {
		if (!this.engaged) {
			return;
		}
		double grown = cubic(nowNanos);
		if (grown >= this.settings.maxRate()) {
			this.engaged = false;
			this.rate = 0;
			this.rateBeforeDecrease = 0;
			this.admittedSinceDecrease = false;
			this.epoch++;
			this.retryTat = nowNanos;
			this.freshTat = nowNanos;
		}
		else if (grown > this.rate * 1.01 || !this.admittedSinceDecrease) {
			this.rate = Math.max(grown, this.rate);
			this.admittedSinceDecrease = true;
		}
	}

	Admission admit(boolean fresh, long nowNanos, long latestStartNanos, Admission.Hold held) {
		long cooldown;
		long slot;
		double rateSeen;
		synchronized (this) {
			cooldown = this.cooldownUntil;
			if (cooldown - nowNanos > 0) {
				if (this.settings.mode() != PacingMode.FAIL_FAST && cooldown - latestStartNanos <= 0) {
					return new Admission.Hold(cooldown, GateHold.COOLDOWN, -1);
				}
				slot = 0;
				rateSeen = 0;
			}
			else {
				if (!this.engaged) {
					return Admission.GO;
				}
				if (held != null && held.reason() == GateHold.RATE && held.epoch() == this.epoch) {
					return (held.untilNanos() - nowNanos > 0) ? held : Admission.GO;
				}
				double share = this.settings.freshShare();
				long retryInterval = interval(this.rate * (1.0 - share));
				long retrySlot = slot(this.retryTat, retryInterval, nowNanos);
				slot = retrySlot;
				boolean freshLane = false;
				long freshInterval = 0;
				if (fresh && share > 0) {
					freshInterval = interval(this.rate * share);
					long freshSlot = slot(this.freshTat, freshInterval, nowNanos);
					if (freshSlot - retrySlot < 0) {
						slot = freshSlot;
						freshLane = true;
					}
				}
				rateSeen = this.rate;
				if (slot - latestStartNanos <= 0) {
					if (freshLane) {
						this.freshTat = Math.max(this.freshTat, slot) + freshInterval;
					}
					else {
						this.retryTat = Math.max(this.retryTat, slot) + retryInterval;
					}
					if (slot - nowNanos <= 0) {
						return Admission.GO;
					}
					return new Admission.Hold(slot, GateHold.RATE, this.epoch);
				}
			}
		}
		// refusals: the message is built outside the lock
		if (cooldown - nowNanos > 0) {
			if (this.settings.mode() == PacingMode.FAIL_FAST) {
				return new Admission.Refuse("provider '" + this.provider + "' is cooling down for another "
						+ seconds(cooldown - nowNanos) + " as its Retry-After asked, and pacing is fail-fast");
			}
			return new Admission.Refuse("provider '" + this.provider + "' is cooling down for another "
					+ seconds(cooldown - nowNanos) + " as its Retry-After asked, past the last instant ("
					+ seconds(latestStartNanos - nowNanos) + " from now) a useful attempt could start");
		}
		return new Admission.Refuse("provider '" + this.provider + "' is paced at "
				+ String.format(Locale.ROOT, "%.1f", rateSeen) + " requests/s and its next slot is "
				+ seconds(slot - nowNanos) + " away, past the last instant (" + seconds(latestStartNanos - nowNanos)
				+ " from now) a useful attempt could start");
	}

	synchronized OptionalDouble rate() {
		return this.engaged ? OptionalDouble.of(this.rate) : OptionalDouble.empty();
	}

	synchronized long cooldownUntilNanos() {
		return this.cooldownUntil;
	}

	private double cubic(long nowNanos) {
		double w = this.rateBeforeDecrease;
		double c = this.settings.growthScale();
		double k = Math.cbrt(w * (1.0 - this.settings.decreaseFactor()) / c);
		double t = Math.max(0, nowNanos - this.lastDecreaseNanos) / NANOS_PER_SECOND;
		double x = t - k;
		return Math.max(this.settings.minRate(), c * x * x * x + w);
	}

	private long slot(long tat, long interval, long nowNanos) {
		long tolerance = (this.settings.burst() - 1) * interval;
		long earliest = tat - tolerance;
		return (earliest - nowNanos > 0) ? earliest : nowNanos;
	}

	private static long interval(double rate) {
		return Math.max(1, (long) Math.ceil(NANOS_PER_SECOND / rate));
	}

	private static String seconds(long nanos) {
		return String.format(Locale.ROOT, "%.3f s", nanos / NANOS_PER_SECOND);
	}

}

package io.github.retryafter.pacing;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import io.github.retryafter.Scope;
import io.github.retryafter.pacing.ProviderGate.Admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The adaptive rate on its own (with the slot book and the cooldown it reads): how throttles, successes and quotas
 * move it.
 */
class AdaptiveRateTests {

	private static final long MS = 1_000_000L;

	private final AtomicLong now = new AtomicLong();

	private final AtomicReference<Pace> state = new AtomicReference<>(Pace.initial(0));

	private final PacingSettings settings = PacingSettings.builder().maxRate(100).decreaseFactor(0.7).burst(10).build();

	private final AdaptiveRate rate = rate();

	private AdaptiveRate rate() {
		Object lock = new Object();
		GateShare share = new GateShare(this.settings);
		SlotBook book = new SlotBook(Scope.provider("p"), this.settings, share, this.state, lock, 0);
		Cooldown cooldown = new Cooldown(Scope.provider("p"), this.settings, this.now::get, lock, 0, book::startBy,
				(fresh, nowNanos, latestStartNanos, held) -> Admission.GO, null);
		return new AdaptiveRate(this.settings, this.now::get, share, book, cooldown, this.state, new AtomicInteger(), lock);
	}

	private Rate current() {
		return this.state.get().rate();
	}

	@Test
	void theFirstThrottleTurnsTheRateOnAtDecreaseFactorTimesMaxRateInANewEpoch() {
		this.rate.onThrottle(0, 0);
		assertThat(current().engaged()).isTrue();
		assertThat(current().perSecond()).isCloseTo(70, within(1e-9));
		assertThat(current().curve().target()).isCloseTo(100, within(1e-9));
		assertThat(this.state.get().lanes().epoch()).isEqualTo(1);
	}

	@Test
	void aThrottleOfARequestSentBeforeTheLastDecreaseIsStale() {
		this.rate.onThrottle(0, 5 * MS);
		Pace before = this.state.get();
		this.rate.onThrottle(MS, 6 * MS);
		assertThat(this.state.get()).isSameAs(before);
	}

	@Test
	void aProviderThatAdmitsNothingIsNotLoweredAgain() {
		this.rate.onThrottle(0, 0);
		this.rate.onThrottle(MS, 2 * MS);
		assertThat(current().perSecond()).isCloseTo(70, within(1e-9));
	}

	@Test
	void aRefusalFromAProviderThatAdmitsStartsAMeasurementAndLowersTheRate() {
		this.rate.onThrottle(0, 0);
		this.rate.onSuccess(MS, MS);
		assertThat(current().admittedSinceDecrease()).isTrue();
		assertThat(this.rate.absorbs(429, Optional.of(Duration.ofSeconds(1)))).isTrue();
		assertThat(this.rate.absorbs(503, Optional.empty())).isFalse();
		assertThat(this.rate.absorbs(429, Optional.of(Duration.ofSeconds(2)))).as("any wait: the provider admits").isTrue();
		this.rate.onThrottle(2 * MS, 2 * MS);
		assertThat(current().sample()).isNotNull();
		assertThat(current().perSecond()).isCloseTo(49, within(1e-9));
	}

	@Test
	void aQuotaWithFewRequestsLeftPacesAtItsHeadroom() {
		this.rate.onQuota(50, 5, 0);
		assertThat(current().engaged()).isTrue();
		assertThat(current().quotaPaced()).isTrue();
		assertThat(current().perSecond()).isCloseTo(47.5, within(1e-9));
		this.rate.onQuota(50, 41, MS);
		assertThat(current().engaged()).as("a new window lets the quota's rate go").isFalse();
	}

	@Test
	void aFleetShareMovesTheRateInForce() {
		this.rate.onThrottle(0, 0);
		this.rate.share(0.5);
		assertThat(current().perSecond()).isCloseTo(35, within(1e-9));
		this.rate.paceAt(20, MS);
		assertThat(current().perSecond()).isCloseTo(20, within(1e-9));
	}

}

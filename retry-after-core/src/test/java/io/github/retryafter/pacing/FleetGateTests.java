package io.github.retryafter.pacing;

import java.time.Duration;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a fleet store sees of a gate: the same gate, through one interface.
 */
class FleetGateTests {

	private static final long S = 1_000_000_000L;

	private final AtomicLong now = new AtomicLong();

	private final ProviderGate gate = new ProviderGate("p", PacingSettings.DEFAULTS, this.now::get);

	@Test
	void aGateHasOneFleetSide() {
		assertThat(this.gate.fleet()).isSameAs(this.gate.fleet());
		assertThat(this.gate.fleet().scope()).isEqualTo(this.gate.scope());
	}

	@Test
	void theFleetSideReadsAndClosesTheGateItself() {
		FleetGate fleet = this.gate.fleet();
		fleet.closeUntil(5 * S);
		assertThat(this.gate.cooldownUntilNanos()).isEqualTo(5 * S);
		assertThat(fleet.cooldownRemaining()).isEqualTo(Duration.ofSeconds(5));
		assertThat(fleet.probePending()).isTrue();
		fleet.onThrottle(0, 0);
		assertThat(fleet.rate()).isEqualTo(this.gate.rate());
		assertThat(this.gate.tryEnqueue()).isTrue();
		assertThat(fleet.queued()).isEqualTo(1);
		fleet.reset();
		assertThat(this.gate.cooldownRemaining()).isZero();
		assertThat(this.gate.rate()).isEqualTo(OptionalDouble.empty());
	}

	@Test
	void theSameShareAgainChangesNothing() {
		FleetGate fleet = this.gate.fleet();
		fleet.onThrottle(0, 0);
		fleet.share(0.5);
		double rate = fleet.rate().getAsDouble();
		fleet.share(0.5);
		assertThat(fleet.rate().getAsDouble()).isEqualTo(rate);
		assertThat(fleet.share()).isEqualTo(0.5);
	}

}

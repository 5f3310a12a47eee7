package io.github.retryafter.engine;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class BackoffTests {

	private final Backoff backoff = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(8));

	@Test
	void ceilingDoublesAfterEachFailureUpToTheMax() {
		assertThat(this.backoff.ceiling(1)).isEqualTo(Duration.ofMillis(500));
		assertThat(this.backoff.ceiling(2)).isEqualTo(Duration.ofSeconds(1));
		assertThat(this.backoff.ceiling(3)).isEqualTo(Duration.ofSeconds(2));
		assertThat(this.backoff.ceiling(4)).isEqualTo(Duration.ofSeconds(4));
		assertThat(this.backoff.ceiling(5)).isEqualTo(Duration.ofSeconds(8));
		assertThat(this.backoff.ceiling(6)).isEqualTo(Duration.ofSeconds(8));
	}

	@Test
	void ceilingIsOverflowSafeForHugeAttemptCounts() {
		for (int failures : new int[] { 31, 32, 62, 63, 64, 65, 1_000, Integer.MAX_VALUE }) {
			assertThat(this.backoff.ceiling(failures)).as("failures %d", failures).isEqualTo(Duration.ofSeconds(8));
		}
		Backoff huge = new Backoff(Duration.ofNanos(1), Duration.ofSeconds(Long.MAX_VALUE));
		assertThat(huge.ceiling(63)).isEqualTo(Duration.ofNanos(1L << 62));
		assertThat(huge.ceiling(64)).isEqualTo(Duration.ofNanos(Long.MAX_VALUE));
		assertThat(huge.ceiling(Integer.MAX_VALUE)).isEqualTo(Duration.ofNanos(Long.MAX_VALUE));
		assertThat(huge.draw(Integer.MAX_VALUE, 0.5).delay()).isPositive();
	}

	@Test
	void drawIsCeilingTimesDrawToTheMillisecond() {
		BackoffDraw draw = this.backoff.draw(3, 0.75);
		assertThat(draw.ceiling()).isEqualTo(Duration.ofSeconds(2));
		assertThat(draw.delay()).isEqualTo(Duration.ofMillis(1500));
		assertThat(this.backoff.draw(1, 0.0).delay()).isZero();
	}

	@Test
	void rejectsDrawsOutsideTheUnitInterval() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.backoff.draw(1, 1.0)).withMessageContaining("1.0");
		assertThatIllegalArgumentException().isThrownBy(() -> this.backoff.draw(1, Double.NaN))
			.withMessageContaining("NaN");
		assertThatIllegalArgumentException().isThrownBy(() -> this.backoff.ceiling(0)).withMessageContaining("0");
	}

}

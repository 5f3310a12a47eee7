package io.github.retryafter.sample;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.github.retryafter.sample.ProviderConditions.RetryAfterForm;
import io.github.retryafter.sample.SimulatedProvider.Answer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class SimulatedProviderTests {

	private static final Instant NOW = Instant.parse("2026-11-30T10:00:00.400Z");

	private final MutableClock clock = new MutableClock(NOW);

	private final SimulatedProvider provider = new SimulatedProvider(this.clock, Duration.ZERO);

	@Test
	void answersEveryRequestDuringAnOutageWithItsStatusAndDelaySeconds() {
		this.provider.start(new ProviderConditions(Duration.ofSeconds(1), 503, Duration.ofSeconds(2),
				RetryAfterForm.DELAY_SECONDS, Duration.ZERO, 0, false));
		Answer during = this.provider.handle("op-1");
		this.clock.advance(Duration.ofMillis(999));
		Answer stillDuring = this.provider.handle("op-2");
		this.clock.advance(Duration.ofMillis(1));
		Answer after = this.provider.handle("op-1");
		assertThat(during.status()).isEqualTo(503);
		assertThat(during.headers()).containsEntry("Retry-After", "2")
			.containsEntry("Date", "Mon, 30 Nov 2026 10:00:00 GMT");
		assertThat(stillDuring.status()).isEqualTo(503);
		assertThat(after.status()).isEqualTo(200);
		assertThat(after.headers()).doesNotContainKey("Retry-After");
	}

	@Test
	void holdsAnswersDuringAHeldOutageUntilItEndsAndDatesThemThen() {
		this.provider.start(new ProviderConditions(Duration.ofSeconds(1), 503, Duration.ofSeconds(2),
				RetryAfterForm.HTTP_DATE, Duration.ZERO, 0, true));
		this.clock.advance(Duration.ofMillis(250));
		Answer held = this.provider.handle("op-1");
		this.clock.advance(Duration.ofMillis(750));
		Answer after = this.provider.handle("op-2");
		assertThat(held.status()).isEqualTo(503);
		assertThat(held.hold()).isEqualTo(Duration.ofMillis(750));
		assertThat(held.headers()).containsEntry("Date", "Mon, 30 Nov 2026 10:00:01 GMT")
			.containsEntry("Retry-After", "Mon, 30 Nov 2026 10:00:03 GMT");
		assertThat(after.status()).isEqualTo(200);
		assertThat(after.hold()).isZero();
		assertThat(this.provider.arrivals()).extracting(Arrival::atMillis).containsExactly(250L, 1000L);
	}

	@Test
	void writesAnHttpDateRetryAfterAgainstItsOwnSkewedDate() {
		this.provider.start(new ProviderConditions(Duration.ofSeconds(1), 429, Duration.ofSeconds(2),
				RetryAfterForm.HTTP_DATE, Duration.ofHours(1), 0, false));
		Answer answer = this.provider.handle("op-1");
		assertThat(answer.status()).isEqualTo(429);
		assertThat(answer.headers()).isEqualTo(Map.of("Date", "Mon, 30 Nov 2026 11:00:00 GMT", "Retry-After",
				"Mon, 30 Nov 2026 11:00:02 GMT"));
	}

	@Test
	void writesTwoDigitDaysAsImfFixdateRequires() {
		MutableClock early = new MutableClock(Instant.parse("2026-12-03T08:09:10Z"));
		Answer answer = new SimulatedProvider(early, Duration.ofSeconds(-70)).answer(503, Duration.ofSeconds(5),
				RetryAfterForm.HTTP_DATE, Duration.ofSeconds(-70));
		assertThat(answer.headers()).containsEntry("Date", "Thu, 03 Dec 2026 08:08:00 GMT")
			.containsEntry("Retry-After", "Thu, 03 Dec 2026 08:08:05 GMT");
	}

	@Test
	void rateLimitAdmitsItsRatePerSecondAndAnswersTheExcessWith429RetryAfterOne() {
		this.provider.start(new ProviderConditions(Duration.ZERO, 503, Duration.ofSeconds(1),
				RetryAfterForm.HTTP_DATE, Duration.ZERO, 3, false));
		assertThat(this.provider.handle("a").status()).isEqualTo(200);
		assertThat(this.provider.handle("b").status()).isEqualTo(200);
		assertThat(this.provider.handle("c").status()).isEqualTo(200);
		Answer excess = this.provider.handle("d");
		assertThat(excess.status()).isEqualTo(429);
		assertThat(excess.headers()).containsEntry("Retry-After", "1");
		this.clock.advance(Duration.ofMillis(334));
		assertThat(this.provider.handle("d").status()).isEqualTo(200);
		assertThat(this.provider.handle("e").status()).isEqualTo(429);
		this.clock.advance(Duration.ofSeconds(10));
		assertThat(this.provider.handle("e").status()).isEqualTo(200);
		assertThat(this.provider.handle("f").status()).isEqualTo(200);
		assertThat(this.provider.handle("g").status()).isEqualTo(200);
		assertThat(this.provider.handle("h").status()).as("the bucket holds one second's worth").isEqualTo(429);
	}

	@Test
	void recordsArrivalsTellingRetriesFromFirstAttemptsByIdempotencyKey() {
		this.provider.start(ProviderConditions.HEALTHY);
		this.provider.handle("op-1");
		this.clock.advance(Duration.ofMillis(15));
		this.provider.handle("op-2");
		this.clock.advance(Duration.ofMillis(2000));
		this.provider.handle("op-1");
		assertThat(this.provider.arrivals()).containsExactly(new Arrival(0, "op-1", 1, 200),
				new Arrival(15, "op-2", 1, 200), new Arrival(2015, "op-1", 2, 200));
	}

	@Test
	void startingAScenarioForgetsThePreviousArrivals() {
		this.provider.handle("op-1");
		this.provider.start(ProviderConditions.HEALTHY);
		this.provider.handle("op-1");
		assertThat(this.provider.arrivals()).containsExactly(new Arrival(0, "op-1", 1, 200));
	}

	@Test
	void rejectsConditionsItCannotExpress() {
		assertThatIllegalArgumentException().isThrownBy(() -> new ProviderConditions(Duration.ZERO, 500,
				Duration.ofSeconds(1), RetryAfterForm.DELAY_SECONDS, Duration.ZERO, 0, false)).withMessageContaining("500");
		assertThatIllegalArgumentException().isThrownBy(() -> new ProviderConditions(Duration.ZERO, 503,
				Duration.ofMillis(1500), RetryAfterForm.DELAY_SECONDS, Duration.ZERO, 0, false))
			.withMessageContaining("whole");
	}

}

package io.github.retryafter.engine;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.github.retryafter.HeaderSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RetryPolicyTests {

	private static AttemptOutcome.Response status(int status) {
		return new AttemptOutcome.Response(status, HeaderSource.empty(), 0, 0);
	}

	@Test
	void defaultsAreTheDocumentedOnes() {
		RetryPolicy policy = RetryPolicy.DEFAULTS;
		assertThat(policy.maxAttempts()).isEqualTo(4);
		assertThat(policy.deadline()).isEqualTo(Duration.ofSeconds(30));
		assertThat(policy.attemptTimeout()).isEqualTo(Duration.ofSeconds(10));
		assertThat(policy.minAttemptTime()).isEqualTo(Duration.ofMillis(100));
		assertThat(policy.totalWait()).isEqualTo(Duration.ofSeconds(30));
		assertThat(policy.retryableStatuses()).containsExactlyInAnyOrder(408, 429, 502, 503, 504);
		assertThat(policy.retryableMethods()).containsExactlyInAnyOrder("GET", "HEAD", "OPTIONS", "PUT", "DELETE");
		assertThat(policy.idempotencyKeyHeader()).isEqualTo("Idempotency-Key");
		assertThat(policy.hintMode()).isEqualTo(HintMode.FLOOR_PLUS_JITTER);
		assertThat(policy.hintCap()).isEqualTo(Duration.ofSeconds(30));
		assertThat(policy.backoff()).isEqualTo(new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10)));
		assertThat(policy.planner().maxWait()).contains(Duration.ofSeconds(30));
		assertThat(policy.subtractRoundTrip()).isFalse();
		assertThat(policy.deadlineReserve()).isZero();
	}

	@Test
	void defaultClassifierTreatsRedirectsAsTheClientsBusinessAnd500AsNotRetryable() {
		ResponseClassifier classifier = RetryPolicy.DEFAULTS.classifier();
		assertThat(classifier.classify(status(200))).isEqualTo(Classification.SUCCESS);
		assertThat(classifier.classify(status(302))).isEqualTo(Classification.SUCCESS);
		for (int retryable : List.of(408, 429, 502, 503, 504)) {
			assertThat(classifier.classify(status(retryable))).as("status %d", retryable)
				.isEqualTo(Classification.RETRYABLE);
		}
		for (int permanent : List.of(400, 401, 403, 404, 409, 422, 500)) {
			assertThat(classifier.classify(status(permanent))).as("status %d", permanent)
				.isEqualTo(Classification.NOT_RETRYABLE);
		}
		for (FailureKind kind : FailureKind.values()) {
			assertThat(classifier.classify(new AttemptOutcome.Failure(kind, new RuntimeException(), 0, 0)))
				.isEqualTo(Classification.RETRYABLE);
		}
	}

	@Test
	void statusesConfiguredAfterwardsRebuildTheDefaultClassifier() {
		RetryPolicy with500 = RetryPolicy.DEFAULTS.toBuilder().retryableStatuses(Set.of(500, 503)).build();
		assertThat(with500.classifier().classify(status(500))).isEqualTo(Classification.RETRYABLE);
		assertThat(with500.classifier().classify(status(429))).isEqualTo(Classification.NOT_RETRYABLE);
	}

	@Test
	void customClassifierSurvivesToBuilder() {
		ResponseClassifier custom = (outcome) -> Classification.NOT_RETRYABLE;
		RetryPolicy policy = RetryPolicy.builder().classifier(custom).build();
		assertThat(policy.toBuilder().maxAttempts(2).build().classifier()).isSameAs(custom);
	}

	@Test
	void toBuilderCopiesEverySetting() {
		RetryPolicy policy = RetryPolicy.builder()
			.maxAttempts(7)
			.deadline(Duration.ofSeconds(9))
			.attemptTimeout(Duration.ofSeconds(2))
			.minAttemptTime(Duration.ofMillis(50))
			.deadlineReserve(Duration.ofMillis(20))
			.totalWait(Duration.ofSeconds(5))
			.retryableMethods(Set.of("get"))
			.idempotencyKeyHeader("X-Request-Id")
			.hintMode(HintMode.CAPPED)
			.hintCap(Duration.ofSeconds(3))
			.subtractRoundTrip(true)
			.build();
		assertThat(policy.toBuilder().build().toString()).isEqualTo(policy.toString());
		assertThat(policy.retryableMethods()).containsExactly("GET");
	}

	@Test
	void rejectsBadValuesNamingSettingAndValue() {
		assertThatIllegalArgumentException().isThrownBy(() -> RetryPolicy.builder().maxAttempts(0))
			.withMessageContaining("maxAttempts")
			.withMessageContaining("0");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryPolicy.builder().deadline(Duration.ZERO))
			.withMessageContaining("deadline")
			.withMessageContaining("PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryPolicy.builder().attemptTimeout(Duration.ofMillis(-1)))
			.withMessageContaining("attemptTimeout");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryPolicy.builder().totalWait(Duration.ofSeconds(-3)))
			.withMessageContaining("totalWait")
			.withMessageContaining("PT-3S");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryPolicy.builder().retryableStatuses(Set.of(200)))
			.withMessageContaining("retryableStatuses")
			.withMessageContaining("200");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryPolicy.builder().retryableMethods(Set.of("G ET")))
			.withMessageContaining("retryableMethods")
			.withMessageContaining("G ET");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryPolicy.builder().idempotencyKeyHeader(""))
			.withMessageContaining("idempotencyKeyHeader");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryPolicy.builder().hintCap(Duration.ofSeconds(-1)))
			.withMessageContaining("hintCap");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RetryPolicy.builder()
				.deadline(Duration.ofMillis(100))
				.minAttemptTime(Duration.ofMillis(100))
				.build())
			.withMessageContaining("minAttemptTime")
			.withMessageContaining("PT0.1S");
	}

}

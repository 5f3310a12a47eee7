package io.github.retryafter.hint;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.HintField;
import io.github.retryafter.HintFields;
import io.github.retryafter.RetryAfterError;

import static org.assertj.core.api.Assertions.assertThat;

/** The should-retry fields read strictly: exactly {@code true} or {@code false}, a veto never overruled. */
class ShouldRetryTests {

	private static final HintFields BOTH = HintFields.STANDARD.with(HintField.X_SHOULD_RETRY,
			HintField.STRIPE_SHOULD_RETRY);

	private static ShouldRetry read(HintFields fields, String... nameValuePairs) {
		Map<String, List<String>> map = new LinkedHashMap<>();
		for (int i = 0; i < nameValuePairs.length; i += 2) {
			map.computeIfAbsent(nameValuePairs[i], (name) -> new ArrayList<>()).add(nameValuePairs[i + 1]);
		}
		return ResponseHints.of(HeaderSource.of(map)).shouldRetry(fields);
	}

	@Test
	void trueAndFalseAreReadWithTheFieldThatSaidThem() {
		ShouldRetry no = read(BOTH, "x-should-retry", "false");
		assertThat(no.verdict()).contains(false);
		assertThat(no.field()).contains("x-should-retry");
		ShouldRetry yes = read(BOTH, "Stripe-Should-Retry", " true\t");
		assertThat(yes.verdict()).contains(true);
		assertThat(yes.field()).contains("Stripe-Should-Retry");
		assertThat(yes.refused()).isEmpty();
	}

	@Test
	void aVetoIsNeverOverruledWhenTheTwoFieldsDisagree() {
		assertThat(read(BOTH, "x-should-retry", "true", "Stripe-Should-Retry", "false").verdict()).contains(false);
		assertThat(read(BOTH, "x-should-retry", "false", "Stripe-Should-Retry", "true").field())
			.contains("x-should-retry");
	}

	@Test
	void theStandardFieldSetReadsNeither() {
		List<String> reads = new ArrayList<>();
		ResponseHints hints = ResponseHints.of((name) -> {
			reads.add(name);
			return List.of("false");
		});
		assertThat(hints.shouldRetry(HintFields.STANDARD)).isEqualTo(ShouldRetry.NONE);
		assertThat(reads).isEmpty();
		assertThat(read(HintFields.STANDARD.with(HintField.STRIPE_SHOULD_RETRY), "x-should-retry", "false"))
			.isEqualTo(ShouldRetry.NONE);
	}

	@ParameterizedTest
	@ValueSource(strings = { "True", "FALSE", "1", "0", "yes", "", " ", "true,false", "\"true\"", "truefalse", "tru" })
	void anythingButExactlyTrueOrFalseIsRefusedAndTheStatusDecides(String value) {
		ShouldRetry read = read(BOTH, "x-should-retry", value);
		assertThat(read.verdict()).isEmpty();
		assertThat(read.refused()).hasValueSatisfying((ex) -> {
			assertThat(ex.code()).isEqualTo(RetryAfterError.INVALID_SHOULD_RETRY);
			assertThat(ex.getMessage()).startsWith("x-should-retry").contains("the status decides");
		});
	}

	@Test
	void twoLinesAreRefusedEvenWhenTheyAgree() {
		ShouldRetry read = read(BOTH, "Stripe-Should-Retry", "false", "Stripe-Should-Retry", "false");
		assertThat(read.verdict()).isEmpty();
		assertThat(read.refused()).hasValueSatisfying(
				(ex) -> assertThat(ex.getMessage()).startsWith("Stripe-Should-Retry appeared in 2 field lines"));
	}

	@Test
	void aRefusedFieldLeavesTheOtherFieldsVerdictStanding() {
		ShouldRetry read = read(BOTH, "x-should-retry", "maybe", "Stripe-Should-Retry", "false");
		assertThat(read.verdict()).contains(false);
		assertThat(read.refused()).isPresent();
	}

}

package io.github.retryafter.boot;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Request attributes as the caller gives them: keys that would split a header are refused, naming the attribute, and
 * so is a value of the wrong type (an {@code @HttpExchange} argument is put as declared).
 */
class RetryAfterAttributesTests {

	@Test
	void idempotencyKeyWithCarriageReturnOrLineFeedIsRefusedWhenGiven() {
		for (String key : new String[] { "a\rb", "a\nb", "a\u0000b", "a\tb", "a\u007Fb" }) {
			assertThatIllegalArgumentException().isThrownBy(() -> RetryAfterAttributes.idempotencyKey(key))
				.withMessageContaining(RetryAfterAttributes.IDEMPOTENCY_KEY);
		}
	}

	@Test
	void idempotencyKeyPutDirectlyIsCheckedWhenRead() {
		Map<String, Object> attributes = new HashMap<>();
		attributes.put(RetryAfterAttributes.IDEMPOTENCY_KEY, "order-7\r\nX-Injected: yes");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryAfterAttributes.read(attributes))
			.withMessageContaining(RetryAfterAttributes.IDEMPOTENCY_KEY)
			.withMessageContaining("U+000D at index 7")
			.withMessageNotContaining("X-Injected");
		attributes.put(RetryAfterAttributes.IDEMPOTENCY_KEY, 42);
		assertThatIllegalArgumentException().isThrownBy(() -> RetryAfterAttributes.read(attributes))
			.withMessageContaining("must be a String");
	}

	@Test
	void printableKeysPassUnchanged() {
		Map<String, Object> attributes = new HashMap<>();
		RetryAfterAttributes.idempotencyKey("order-7 été/ü").accept(attributes);
		assertThat(RetryAfterAttributes.read(attributes).idempotencyKey()).contains("order-7 été/ü");
	}

	@Test
	void attributeNamesAreThisClassesNameAndTheOptionSoTheyStayWhatTheyWere() {
		String prefix = RetryAfterAttributes.class.getName() + ".";
		assertThat(RetryAfterAttributes.PROVIDER).isEqualTo(prefix + "provider");
		assertThat(RetryAfterAttributes.IDEMPOTENCY_KEY).isEqualTo(prefix + "idempotencyKey");
		assertThat(RetryAfterAttributes.DEADLINE).isEqualTo(prefix + "deadline");
		assertThat(RetryAfterAttributes.DISABLED).isEqualTo(prefix + "disabled");
		assertThat(RetryAfterAttributes.OUTCOME_LISTENER).isEqualTo(prefix + "outcomeListener");
	}

	@Test
	void attributeOfTheWrongTypeIsRefusedNamingItAndTheTypeItNeeds() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RetryAfterAttributes.read(Map.of(RetryAfterAttributes.DEADLINE, "PT2S")))
			.withMessageContaining(RetryAfterAttributes.DEADLINE)
			.withMessageContaining("must be a java.time.Duration but was a java.lang.String");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RetryAfterAttributes.read(Map.of(RetryAfterAttributes.PROVIDER, 7)))
			.withMessageContaining(RetryAfterAttributes.PROVIDER);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RetryAfterAttributes.read(Map.of(RetryAfterAttributes.DISABLED, "true")))
			.withMessageContaining(RetryAfterAttributes.DISABLED);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RetryAfterAttributes.read(Map.of(RetryAfterAttributes.OUTCOME_LISTENER, "log")))
			.withMessageContaining(RetryAfterAttributes.OUTCOME_LISTENER);
	}

	@Test
	void attributesOfTheirTypesAreRead() {
		RetryAfterAttributes.RequestOptions options = RetryAfterAttributes.read(Map.of(RetryAfterAttributes.DEADLINE,
				Duration.ofSeconds(2), RetryAfterAttributes.PROVIDER, "billing", RetryAfterAttributes.DISABLED, false));
		assertThat(options.deadline()).contains(Duration.ofSeconds(2));
		assertThat(options.provider()).contains("billing");
		assertThat(options.disabled()).isFalse();
	}

}

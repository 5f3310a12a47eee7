package io.github.retryafter.boot;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Request attributes as the caller gives them: keys that would split a header are refused, naming the attribute.
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

}

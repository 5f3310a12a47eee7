package io.github.retryafter.boot.actuate;

import java.time.Duration;
import java.util.Locale;

import io.github.retryafter.RetryPlan;
import io.github.retryafter.engine.RetryScheduledEvent;

/**
 * Says exactly what the provider said, apart from what this library added: the wait the provider asked for (its field,
 * the figure after the response's age), the jitter added above it, the other wait fields it was chosen over, and the
 * clock skew, which under one second is the {@code Date}'s own precision and not skew. Stateless.
 */
final class ProviderWords {

	private ProviderWords() {
	}

	/** The event's sentence for a retry scheduled after a 429 or 503. */
	static String of(RetryScheduledEvent event) {
		int next = event.attempt() + 1;
		if (event.plan().isEmpty()) {
			return "the provider asked for a pause; attempt " + next + " waits " + event.delay().toMillis() + " ms";
		}
		RetryPlan plan = event.plan().get();
		StringBuilder text = new StringBuilder("the provider asked to wait ").append(plan.floor().toMillis())
			.append(" ms (").append(field(plan)).append(' ').append(plan.instructed().toMillis()).append(" ms");
		if (!plan.age().isZero()) {
			text.append(", less ").append(plan.age().toMillis()).append(" ms of age");
		}
		for (RetryPlan.PassedOver other : plan.passedOver()) {
			text.append(other.instructed()
				.map((wait) -> ", later than " + other.field().names().get(0) + "'s " + wait.toMillis() + " ms")
				.orElseGet(() -> ", " + other.field().names().get(0) + " refused: " + other.refused().get()));
		}
		text.append(")");
		long added = event.delay().toMillis() - plan.floor().toMillis();
		if (added >= 0) {
			text.append("; ").append(added).append(" ms of jitter added above it, so attempt ").append(next)
				.append(" waits ").append(event.delay().toMillis()).append(" ms");
		}
		else {
			text.append("; attempt ").append(next).append(" waits only ").append(event.delay().toMillis())
				.append(" ms (the hint cap)");
		}
		plan.skew().ifPresent((skew) -> text.append("; ").append(skew(plan, skew)));
		return text.toString();
	}

	/** The event's fields: the provider's floor and what was added, apart. */
	static RetryAfterEvents.Asked asked(RetryPlan plan, Duration delay) {
		return new RetryAfterEvents.Asked(field(plan), plan.floor().toMillis(),
				delay.toMillis() - plan.floor().toMillis(), plan.skew().map((skew) -> skew.toNanos() / 1e9).orElse(null),
				plan.skewWithinDatePrecision());
	}

	/**
	 * A skew in words: within the {@code Date}'s one-second precision, or how far ahead or behind the server's clock
	 * is.
	 */
	static String skew(RetryPlan plan, Duration skew) {
		if (plan.skewWithinDatePrecision()) {
			return "the server's clock agrees with ours within the Date's one-second precision";
		}
		return String.format(Locale.ROOT, "the server's clock is %.3f s %s ours", Math.abs(skew.toNanos() / 1e9),
				skew.isNegative() ? "behind" : "ahead of");
	}

	private static String field(RetryPlan plan) {
		return plan.source().field().names().get(0);
	}

}

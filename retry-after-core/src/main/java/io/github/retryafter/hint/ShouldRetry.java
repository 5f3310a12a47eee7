package io.github.retryafter.hint;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

import io.github.retryafter.HintField;
import io.github.retryafter.HintFields;
import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryAfterException;
import io.github.retryafter.internal.FieldText;

/**
 * What a response's should-retry fields ({@code x-should-retry}, {@code Stripe-Should-Retry}) say, read strictly: each
 * is one field line of exactly {@code true} or {@code false} (SP/HTAB trimmed); anything else (empty, repeated,
 * {@code True}, {@code 1}, {@code yes}) is refused with {@link RetryAfterError#INVALID_SHOULD_RETRY} and treated as
 * absent. When both are read and disagree, {@code false} wins: a veto is never overruled. A verdict is the provider's
 * say on whether to retry; the engine still applies replay safety, the deadline, the attempts and the budget.
 * Immutable and thread-safe.
 *
 * @param verdict {@code true} (retry even a status that otherwise would not be), {@code false} (do not retry), or
 * empty (no usable field, so the status decides)
 * @param field the name of the field the verdict came from, empty without a verdict
 * @param refused the refusal of a field present but unusable, if any
 */
public record ShouldRetry(Optional<Boolean> verdict, Optional<String> field, Optional<RetryAfterException> refused) {

	/** No should-retry field read. */
	public static final ShouldRetry NONE = new ShouldRetry(Optional.empty(), Optional.empty(), Optional.empty());

	/**
	 * Checks the arguments.
	 * @param verdict the provider's say, if any
	 * @param field the field the verdict came from
	 * @param refused the refusal of a field present but unusable, if any
	 */
	public ShouldRetry {
		Objects.requireNonNull(verdict, "verdict");
		Objects.requireNonNull(field, "field");
		Objects.requireNonNull(refused, "refused");
	}

	/** Reads the should-retry fields {@code fields} names, in the order {@code x-should-retry}, {@code Stripe-Should-Retry}. */
	static ShouldRetry read(ResponseHints hints, HintFields fields) {
		ShouldRetry result = NONE;
		for (HintField group : List.of(HintField.X_SHOULD_RETRY, HintField.STRIPE_SHOULD_RETRY)) {
			if (!fields.reads(group)) {
				continue;
			}
			String name = group.names().get(0);
			List<String> lines = hints.lines(name);
			if (lines.isEmpty()) {
				continue;
			}
			try {
				boolean said = parse(name, lines);
				if (result.verdict().isEmpty() || (result.verdict().get() && !said)) {
					result = new ShouldRetry(Optional.of(said), Optional.of(name), result.refused());
				}
			}
			catch (RetryAfterException ex) {
				result = new ShouldRetry(result.verdict(), result.field(), result.refused().or(() -> Optional.of(ex)));
			}
		}
		return result;
	}

	private static boolean parse(String field, List<String> lines) {
		if (lines.size() > 1) {
			throw new RetryAfterException(RetryAfterError.INVALID_SHOULD_RETRY, field + " appeared in " + lines.size()
					+ " field lines, but it holds one true or false; none is used, so the status decides. Ask the"
					+ " provider (or the hop that adds one) to send exactly one.");
		}
		String value = lines.get(0);
		int start = RetryAfterField.trimStart(value);
		int end = RetryAfterField.trimEnd(value, start);
		if (end - start == 4 && value.startsWith("true", start)) {
			return true;
		}
		if (end - start == 5 && value.startsWith("false", start)) {
			return false;
		}
		throw new RetryAfterException(RetryAfterError.INVALID_SHOULD_RETRY, field + " "
				+ ((start == end) ? "is empty" : FieldText.quote(value, start, end) + " is neither true nor false")
				+ ", so it is treated as absent and the status decides. Ask the provider to send exactly \"true\" or"
				+ " \"false\", lower-case.");
	}

}

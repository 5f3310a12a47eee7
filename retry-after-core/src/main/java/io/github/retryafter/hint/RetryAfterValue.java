package io.github.retryafter.hint;

import java.util.List;

import io.github.retryafter.internal.FieldText;

/**
 * The single {@code Retry-After} field line, its trimmed bounds, and its delay-seconds or
 * {@link RetryAfterField#DATE_FORM}. Immutable.
 *
 * @param raw the field line as received
 * @param start the start of the trimmed value
 * @param end one past the end of the trimmed value
 * @param delaySeconds the delay, saturated, or {@link RetryAfterField#DATE_FORM}
 */
record RetryAfterValue(String raw, int start, int end, long delaySeconds) {

	/**
	 * Refuses every line but a single usable one, and classifies it.
	 * @throws io.github.retryafter.RetryAfterException with the field's own error
	 */
	static RetryAfterValue parse(List<String> lines) {
		RetryAfterField.requireSingle(lines);
		String raw = lines.get(0);
		int start = RetryAfterField.trimStart(raw);
		int end = RetryAfterField.trimEnd(raw, start);
		return new RetryAfterValue(raw, start, end, RetryAfterField.delaySeconds(raw, start, end));
	}

	boolean dateForm() {
		return this.delaySeconds == RetryAfterField.DATE_FORM;
	}

	String quoted() {
		return FieldText.quote(this.raw, this.start, this.end);
	}

}

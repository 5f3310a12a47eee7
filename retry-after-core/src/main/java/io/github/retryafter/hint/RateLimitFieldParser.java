package io.github.retryafter.hint;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

import io.github.retryafter.HintField;
import io.github.retryafter.HintFields;
import io.github.retryafter.RetryAfterException;
import io.github.retryafter.hint.RateLimitFields.Family;
import io.github.retryafter.hint.RateLimitFields.Problem;
import io.github.retryafter.hint.RateLimitFields.Problem.Code;
import io.github.retryafter.hint.StructuredList.Item;
import io.github.retryafter.internal.FieldText;

/**
 * Reads {@link RateLimitFields} strictly: the structured-field lists of the IETF draft (through {@link StructuredList},
 * a small RFC 9651 list parser: items with parameters; inner lists are refused) and the two integer trios, through a
 * response's {@link ResponseHints}, which reads each field line once.
 * <p>
 * Each field is parsed on its own; one that fails is left out and named as a {@link Problem}, so a usable
 * {@code RateLimit-Remaining} still counts beside a malformed {@code RateLimit-Limit}. Nothing is guessed: a value is
 * used as it is written or not at all. Work is linear in the fields' length; nothing throws.
 * <p>
 * Stateless and thread-safe.
 */
final class RateLimitFieldParser {

	/** The standard families, in the order they are looked for. */
	private static final List<Family> STANDARD_FAMILIES = List.of(Family.IETF, Family.DRAFT_TRIO, Family.X_TRIO);

	private RateLimitFieldParser() {
	}

	/**
	 * Reads the first family present in {@code hints} of those {@code fields} names: a vendor family's windows
	 * first, then the standard families in their order.
	 * @param hints the response's hint fields
	 * @param fields the field groups read
	 * @return what they announce
	 */
	static RateLimitFields read(ResponseHints hints, HintFields fields) {
		Optional<RateLimitFields> vendor = WindowFieldParser.read(hints, fields);
		if (vendor.isPresent()) {
			return vendor.get();
		}
		if (!fields.reads(HintField.RATE_LIMIT)) {
			return RateLimitFields.NONE;
		}
		for (Family family : STANDARD_FAMILIES) {
			if (family.presentIn(hints)) {
				Reader reader = new Reader(hints, family);
				return (family == Family.IETF) ? reader.structured() : reader.trio();
			}
		}
		return RateLimitFields.NONE;
	}

	/** One reading: the numbers found so far and the problems. Confined to one call. */
	private static final class Reader extends FieldReading {

		Reader(ResponseHints hints, Family family) {
			super(hints, family);
		}

		/**
		 * {@code RateLimit-Policy} gives the quota, {@code RateLimit} the window, and the window's limit is the
		 * {@code q} of the policy named as it is.
		 */
		RateLimitFields structured() {
			OptionalDouble quota = OptionalDouble.empty();
			List<Item> policies = list("RateLimit-Policy");
			for (Item policy : policies) {
				OptionalDouble rate = policyRate(policy);
				if (rate.isPresent() && (quota.isEmpty() || rate.getAsDouble() < quota.getAsDouble())) {
					quota = rate;
				}
			}
			OptionalLong remaining = OptionalLong.empty();
			Optional<Duration> reset = Optional.empty();
			Item read = null;
			for (Item window : list("RateLimit")) {
				OptionalLong r = integerParameter("RateLimit", window, "r", false);
				OptionalLong t = integerParameter("RateLimit", window, "t", false);
				if (r.isPresent() && (remaining.isEmpty() || r.getAsLong() < remaining.getAsLong())) {
					remaining = r;
					reset = t.isPresent() ? Optional.of(Duration.ofSeconds(t.getAsLong())) : Optional.empty();
					read = window;
				}
			}
			return result(quota, (read != null) ? policyLimit(policies, read.value()) : OptionalLong.empty(),
					remaining, reset);
		}

		/**
		 * The {@code q} of the policy named {@code name}, when it counts requests; its problems were named while the
		 * quota was read.
		 */
		private static OptionalLong policyLimit(List<Item> policies, Object name) {
			for (Item policy : policies) {
				Object unit = policy.parameters().get("qu");
				if (policy.value().equals(name) && (unit == null || "requests".equals(unit))
						&& policy.parameters().get("q") instanceof Long q && q > 0) {
					return OptionalLong.of(q);
				}
			}
			return OptionalLong.empty();
		}

		/** {@code q / w} of one policy, when both are there and it counts requests. */
		private OptionalDouble policyRate(Item policy) {
			Object unit = policy.parameters().get("qu");
			if (unit != null && !"requests".equals(unit)) {
				problem(Code.NOT_REQUESTS, "RateLimit-Policy", "its policy " + FieldText.quote(policy.text())
						+ " counts " + FieldText.quote(String.valueOf(unit)) + ", not requests, so it does not say how "
						+ "many requests to send");
				return OptionalDouble.empty();
			}
			OptionalLong q = integerParameter("RateLimit-Policy", policy, "q", true);
			OptionalLong w = integerParameter("RateLimit-Policy", policy, "w", true);
			return (q.isPresent() && w.isPresent()) ? OptionalDouble.of(q.getAsLong() / (double) w.getAsLong())
					: OptionalDouble.empty();
		}

		private OptionalLong integerParameter(String field, Item item, String key, boolean positive) {
			Object value = item.parameters().get(key);
			if (value == null) {
				return OptionalLong.empty();
			}
			if (!(value instanceof Long number) || number < 0 || (positive && number == 0)) {
				problem(Code.INVALID_NUMBER, field, "its parameter " + key + " in " + FieldText.quote(item.text())
						+ " is not " + (positive ? "a positive" : "a non-negative") + " integer");
				return OptionalLong.empty();
			}
			return OptionalLong.of(number);
		}

		/** The field's members, or none (and a problem) when it is not a list of items. */
		private List<Item> list(String field) {
			List<String> lines = this.hints.lines(field);
			if (lines.isEmpty()) {
				return List.of();
			}
			String value = String.join(",", lines);
			try {
				return new StructuredList(value).parse();
			}
			catch (IllegalArgumentException ex) {
				problem(Code.MALFORMED, field, FieldText.quote(value) + " is not a structured-field list of items ("
						+ ex.getMessage() + ")");
				return List.of();
			}
		}

		/** The trios: each field one integer (the limit may add quota policies); the reset delta or epoch seconds. */
		RateLimitFields trio() {
			List<String> names = this.family.fields();
			List<Item> limit = limit(names.get(0));
			OptionalDouble quota = quota(names.get(0), limit);
			OptionalLong remaining = single(names.get(1), false);
			OptionalLong resetValue = single(names.get(2), false);
			Optional<Duration> reset = resetValue.isPresent() ? reset(names.get(2), resetValue.getAsLong())
					: Optional.empty();
			return result(quota, limit.isEmpty() ? OptionalLong.empty() : OptionalLong.of((Long) limit.get(0).value()),
					remaining, reset);
		}

		/**
		 * {@code 100} (no window, so no rate) or {@code 100, 100;w=60}: the rate of the member equal to the limit,
		 * when it names its window.
		 */
		private OptionalDouble quota(String field, List<Item> members) {
			for (Item member : members) {
				if (member.value() instanceof Long quota && quota.equals(members.get(0).value())) {
					OptionalLong window = integerParameter(field, member, "w", true);
					if (window.isPresent()) {
						return OptionalDouble.of(quota / (double) window.getAsLong());
					}
				}
			}
			return OptionalDouble.empty();
		}

		/** The limit field's members, the first a positive integer; none (and a problem) when it is unusable. */
		private List<Item> limit(String field) {
			List<String> lines = this.hints.lines(field);
			if (lines.isEmpty()) {
				return List.of();
			}
			if (lines.size() > 1) {
				problem(Code.MULTIPLE_VALUES, field, "it has " + lines.size() + " field lines; one is allowed");
				return List.of();
			}
			String value = lines.get(0);
			List<Item> members;
			try {
				members = new StructuredList(value).parse();
			}
			catch (IllegalArgumentException ex) {
				problem(Code.MALFORMED, field, FieldText.quote(value) + " is not an integer, optionally followed by "
						+ "quota policies such as \"100, 100;w=60\" (" + ex.getMessage() + ")");
				return List.of();
			}
			if (members.isEmpty() || !(members.get(0).value() instanceof Long limit) || limit <= 0) {
				problem(Code.INVALID_NUMBER, field, FieldText.quote(value) + " does not start with a positive integer");
				return List.of();
			}
			return members;
		}

		/** One field line holding one integer of ASCII digits. */
		private OptionalLong single(String field, boolean positive) {
			List<String> lines = this.hints.lines(field);
			if (lines.isEmpty()) {
				return OptionalLong.empty();
			}
			if (lines.size() > 1) {
				problem(Code.MULTIPLE_VALUES, field, "it has " + lines.size() + " field lines; one is allowed");
				return OptionalLong.empty();
			}
			String value = lines.get(0);
			int start = RetryAfterField.trimStart(value);
			int end = RetryAfterField.trimEnd(value, start);
			if (start == end) {
				problem(Code.MALFORMED, field, "it is empty");
				return OptionalLong.empty();
			}
			if (value.indexOf(',', start) >= 0 && value.indexOf(',', start) < end) {
				problem(Code.MULTIPLE_VALUES, field, FieldText.quote(value) + " has several values; one is allowed");
				return OptionalLong.empty();
			}
			long number = StructuredList.digits(value, start, end);
			if (number < 0 || (positive && number == 0)) {
				problem(Code.INVALID_NUMBER, field, FieldText.quote(value) + " is not an integer of at most "
						+ StructuredList.MAX_DIGITS + " ASCII digits");
				return OptionalLong.empty();
			}
			return OptionalLong.of(number);
		}

		/** Delta-seconds, or epoch seconds measured against the response's own {@code Date}. */
		private Optional<Duration> reset(String field, long value) {
			if (value < RateLimitFields.EPOCH_SECONDS_FROM) {
				return Optional.of(Duration.ofSeconds(value));
			}
			List<String> dates = this.hints.dateLines();
			if (dates.size() != 1) {
				problem(Code.MISSING_DATE, field, value + " is epoch seconds, and the response has "
						+ (dates.isEmpty() ? "no Date" : dates.size() + " Date lines") + " to measure it against; the "
						+ "client's clock is never used");
				return Optional.empty();
			}
			long date;
			try {
				date = this.hints.date(value);
			}
			catch (RetryAfterException ex) {
				problem(Code.MISSING_DATE, field, value + " is epoch seconds, and the response's Date is unusable: "
						+ ex.getMessage());
				return Optional.empty();
			}
			if (value < date) {
				problem(Code.RESET_BEFORE_DATE, field, value + " (epoch seconds) is " + (date - value)
						+ " s before the response's Date");
				return Optional.empty();
			}
			return Optional.of(Duration.ofSeconds(value - date));
		}

		private RateLimitFields result(OptionalDouble quota, OptionalLong limit, OptionalLong remaining,
				Optional<Duration> reset) {
			return new RateLimitFields(quota, limit, remaining, reset, Optional.of(this.family), this.problems,
					List.of());
		}

	}

}

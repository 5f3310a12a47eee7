package io.github.retryafter.hint;

import java.util.ArrayList;
import java.util.List;

import io.github.retryafter.hint.RateLimitFields.Family;
import io.github.retryafter.hint.RateLimitFields.Problem;
import io.github.retryafter.hint.RateLimitFields.Problem.Code;

/**
 * One reading of a family of rate-limit fields on one response: the response, the family, and the problems found so
 * far, each a field ignored with its reason. The parsers of the standard families and of the vendors' windows read
 * through it. Confined to one call.
 */
abstract class FieldReading {

	final ResponseHints hints;

	final Family family;

	final List<Problem> problems = new ArrayList<>();

	FieldReading(ResponseHints hints, Family family) {
		this.hints = hints;
		this.family = family;
	}

	/** Records that {@code field} was ignored, and why. */
	final void problem(Code code, String field, String reason) {
		this.problems.add(new Problem(code, field, field + " ignored: " + reason));
	}

}

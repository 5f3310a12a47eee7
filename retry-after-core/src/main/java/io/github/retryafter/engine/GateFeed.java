package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Comparator;
import java.util.Optional;
import java.util.OptionalLong;

import io.github.retryafter.JitterMode;
import io.github.retryafter.PlanRequest;
import io.github.retryafter.RetryAfterException;
import io.github.retryafter.RetryPlan;
import io.github.retryafter.hint.RateLimitFields;
import io.github.retryafter.hint.ResponseHints;
import io.github.retryafter.hint.RetryAfterPlanner;
import io.github.retryafter.internal.Saturating;
import io.github.retryafter.pacing.ProviderGate;

/**
 * Tells a provider's gate what one response said, from the response's {@link ResponseHints} (so the gate's reading
 * and the operation's share one parse): a usable {@code Retry-After} closes it (unless the gate absorbs a 429 as a rate
 * signal), a 429 or 503 throttles it with the wait it asked for, a success
 * grows it, and the rate-limit fields pace it. The hint is planned without jitter and without a max wait, so it draws
 * no random number. Immutable and thread-safe, as long as the engine's listener is.
 */
final class GateFeed {

	private final RetryPolicy policy;

	private final RetryListener listener;

	private final RetryAfterPlanner gatePlanner;

	GateFeed(RetryPolicy policy, RetryAfterPlanner planner, RetryListener listener) {
		this.policy = policy;
		this.listener = listener;
		this.gatePlanner = RetryAfterPlanner.builder()
			.options(policy.planner().toBuilder().jitter(JitterMode.NONE).maxWait(null).build())
			.random(() -> 0.0)
			.ticker(planner.ticker())
			.wallClock(planner.wallClock())
			.build();
	}

	/**
	 * Tells {@code gate} what one response of attempt {@code attempts} said (see the class description).
	 * @return the pause the response named for its gate, {@code null} when it named none
	 */
	Pause observe(ProviderGate gate, OperationSpec spec, int attempts, AttemptOutcome.Response response,
			Classification classification) {
		Pause pause = null;
		if (this.policy.pacing().rateLimitFields()) {
			pause = observeRateLimitFields(gate, spec, attempts, response);
		}
		int status = response.status();
		boolean throttle = status == 429 || status == 503;
		if (classification == Classification.SUCCESS) {
			gate.onSuccess(response.sentAtNanos(), response.receivedAtNanos());
			return pause;
		}
		Optional<Duration> wait = Optional.empty();
		if ((throttle || classification == Classification.RETRYABLE) && response.hints().hasWaitField(this.gatePlanner.options().fields())) {
			try {
				Optional<RetryPlan> plan = this.gatePlanner.plan(response.hints(), PlanRequest.forAttempt(attempts));
				if (plan.isPresent()) {
					wait = Optional.of(plan.get().floor());
					boolean closes = !gate.absorbs(status, wait);
					long before = gate.cooldownUntilNanos();
					if (closes) {
						gate.closeUntil(plan.get().deadlineNanos());
					}
					pause = Pause.later(pause, new Pause(WaitCause.of(plan.get().source()),
							plan.get().source().field().names().get(0), plan.get().deadlineNanos(),
							closes && gate.cooldownUntilNanos() - before > 0));
				}
			}
			catch (RetryAfterException ex) {
				// unusable: treated as absent, as the operation's own decision does and reports
			}
		}
		if (throttle) {
			gate.onThrottle(response.sentAtNanos(), response.receivedAtNanos(), wait);
		}
		return pause;
	}

	/**
	 * Reads the end of a response's wait-field floor ({@code Retry-After} and the millisecond fields read) as the gate does (measured from now, without jitter
	 * and without a max wait): what an operation that gives up hands on ({@link NotBefore}).
	 * @return the ticker reading the floor ends at, empty when the field is absent or unusable
	 */
	OptionalLong floorEnd(AttemptOutcome.Response response, int attempts) {
		if (!response.hints().hasWaitField(this.gatePlanner.options().fields())) {
			return OptionalLong.empty();
		}
		try {
			Optional<RetryPlan> plan = this.gatePlanner.plan(response.hints(), PlanRequest.forAttempt(attempts));
			return plan.isPresent() ? OptionalLong.of(plan.get().deadlineNanos()) : OptionalLong.empty();
		}
		catch (RetryAfterException ex) {
			return OptionalLong.empty();
		}
	}

	/**
	 * Feeds a response's rate-limit fields (the families the policy's field set names) to its provider's gate: a
	 * quota sets and caps the rate ({@link ProviderGate#onQuota}), else {@code remaining / reset} does, scaled by the
	 * scarcest token window ({@link RateLimitFields#ratePerSecond()}), and a vendor's windows keep a rate they set
	 * while they are in use ({@link ProviderGate#onWindows}); an exhausted window closes the gate until its
	 * reset ({@link RateLimitFields#hold()}), measured from receipt and capped at the planner's max wait (the deadline
	 * without one). Unusable fields are reported to the listener and ignored.
	 * @return the exhausted window's pause, {@code null} when no window is exhausted
	 */
	private Pause observeRateLimitFields(ProviderGate gate, OperationSpec spec, int attempts,
			AttemptOutcome.Response response) {
		RateLimitFields fields = response.hints().rateLimits(this.policy.planner().fields());
		for (RateLimitFields.Problem problem : fields.problems()) {
			this.listener.onRateLimitFieldIgnored(new RateLimitFieldEvent(spec, attempts, problem));
		}
		OptionalLong paced = fields.pacedRemaining();
		if (paced.isPresent() && fields.windows().isEmpty()) {
			gate.onQuota(fields.ratePerSecond(), paced.getAsLong(), response.receivedAtNanos());
		}
		else if (paced.isPresent()) {
			gate.onWindows(fields.ratePerSecond(), paced.getAsLong(), response.receivedAtNanos());
		}
		if (fields.hold().isEmpty()) {
			return null;
		}
		Duration cap = this.policy.planner().maxWait().orElse(this.policy.deadline());
		Duration wait = fields.hold().get().compareTo(cap) > 0 ? cap : fields.hold().get();
		long until = Saturating.add(response.receivedAtNanos(), Saturating.toNanos(wait));
		long before = gate.cooldownUntilNanos();
		gate.closeUntil(until);
		return new Pause(WaitCause.WINDOW_RESET, resetField(fields), until, gate.cooldownUntilNanos() - before > 0);
	}

	/** The name of the field that gave an exhausted window's reset: the latest reset among the windows held. */
	private static String resetField(RateLimitFields fields) {
		RateLimitFields.Family family = fields.family().orElse(RateLimitFields.Family.X_TRIO);
		Optional<RateLimitFields.Window> held = fields.windows()
			.stream()
			.filter(RateLimitFields.Window::exhausted)
			.max(Comparator.comparing((window) -> window.reset().get()));
		return switch (family) {
			case IETF -> "RateLimit";
			case DRAFT_TRIO -> "RateLimit-Reset";
			case X_TRIO -> "X-RateLimit-Reset";
			case OPENAI -> "x-ratelimit-reset-" + held.map(RateLimitFields.Window::name).orElse("requests");
			case ANTHROPIC -> "anthropic-ratelimit-" + held.map(RateLimitFields.Window::name).orElse("requests")
					+ "-reset";
		};
	}

	/**
	 * What one response named of a pause for its provider's gate: the latest instant it named, the field that named
	 * it, and whether the response closed the gate or kept it closed longer. Immutable.
	 *
	 * @param cause the field that named the instant, as a cause of waits
	 * @param field that field's name, as providers spell it
	 * @param untilNanos the instant, on the gate's ticker
	 * @param closedGate whether the response closed the gate or moved its end later (by any of its fields)
	 */
	record Pause(WaitCause cause, String field, long untilNanos, boolean closedGate) {

		/** The later of two pauses of one response, closing the gate if either did. */
		static Pause later(Pause first, Pause second) {
			if (first == null) {
				return second;
			}
			Pause later = (second.untilNanos - first.untilNanos > 0) ? second : first;
			return new Pause(later.cause, later.field, later.untilNanos, first.closedGate || second.closedGate);
		}

	}

}

package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Optional;

import io.github.retryafter.JitterMode;
import io.github.retryafter.PlannerOptions;
import io.github.retryafter.RandomSource;
import io.github.retryafter.RetryPlan;
import io.github.retryafter.internal.Saturating;

/**
 * How the engine turns the planner's skew-free, age-corrected floor into a wait. Every mode except {@link #CAPPED}
 * waits at least the floor. Each mode carries its own behaviour: how it configures the engine's planner, and how it
 * turns a plan into a wait, so a new mode is one constant here and nothing else.
 */
public enum HintMode {

	/** The planner's plan: the floor plus jitter drawn above it (random or keyed). The default. */
	FLOOR_PLUS_JITTER {

		@Override
		HintedWait wait(RetryPlan plan, RetryPolicy policy, int attempt, RandomSource random) {
			return new HintedWait(plan.floor(), plan.waitTime(), Optional.empty());
		}

	},

	/** Exactly the floor, no jitter. Every client told the same thing returns in the same millisecond. */
	EXACT {

		@Override
		PlannerOptions plannerOptions(PlannerOptions options) {
			return options.toBuilder().jitter(JitterMode.NONE).build();
		}

		@Override
		HintedWait wait(RetryPlan plan, RetryPolicy policy, int attempt, RandomSource random) {
			return new HintedWait(plan.floor(), plan.floor(), Optional.empty());
		}

	},

	/**
	 * The larger of the floor and a fallback backoff draw, plus the planner's non-negative jitter (the planner draws
	 * first, then the backoff).
	 */
	MAX_WITH_BACKOFF {

		@Override
		HintedWait wait(RetryPlan plan, RetryPolicy policy, int attempt, RandomSource random) {
			BackoffDraw draw = policy.backoff().draw(attempt, random.nextDouble());
			Duration larger = (plan.floor().compareTo(draw.delay()) >= 0) ? plan.floor() : draw.delay();
			return new HintedWait(plan.floor(), Saturating.plus(larger, plan.jitter()), Optional.of(draw));
		}

	},

	/**
	 * {@code min(hintCap, floor)}, no jitter, no random draw consumed on the hinted path. It waits <em>less</em> than
	 * the server asked when the hint exceeds the cap, so it exists for comparison and simulation only. Its planner runs
	 * without jitter and without a max wait, because the cap replaces it.
	 */
	CAPPED {

		@Override
		PlannerOptions plannerOptions(PlannerOptions options) {
			return options.toBuilder().jitter(JitterMode.NONE).maxWait(null).build();
		}

		@Override
		HintedWait wait(RetryPlan plan, RetryPolicy policy, int attempt, RandomSource random) {
			Duration capped = (policy.hintCap().compareTo(plan.floor()) <= 0) ? policy.hintCap() : plan.floor();
			return new HintedWait(capped, capped, Optional.empty());
		}

	};

	/**
	 * Returns the options the engine's planner runs with in this mode, from the policy's.
	 * @param options the policy's planner options
	 * @return the options for this mode
	 */
	PlannerOptions plannerOptions(PlannerOptions options) {
		return options;
	}

	/**
	 * Turns the planner's plan into this mode's wait.
	 * @param plan the planner's plan for the response
	 * @param policy the engine's policy (backoff, hint cap)
	 * @param attempt the attempt that just failed, from 1
	 * @param random the engine's random source, for modes that draw
	 * @return the floor the wait must not go below, the wait, and any backoff draw made
	 */
	abstract HintedWait wait(RetryPlan plan, RetryPolicy policy, int attempt, RandomSource random);

	/**
	 * A mode's wait for one plan.
	 * @param floor what the wait must not be shortened below (to fit the deadline or the total wait)
	 * @param delay the wait
	 * @param draw the backoff draw the wait was compared with, if any
	 */
	record HintedWait(Duration floor, Duration delay, Optional<BackoffDraw> draw) {

	}

}

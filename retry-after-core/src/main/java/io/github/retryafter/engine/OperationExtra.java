package io.github.retryafter.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.retryafter.pacing.GateHold;
import io.github.retryafter.pacing.ProviderGate;

/**
 * What only a retry, a wait for the gate or for a token, or a probe needs of a {@link RetryOperation}: kept apart, and
 * made the first time one happens, so that an operation whose first attempt is sent at once and succeeds carries none
 * of it. Not thread-safe: its operation's driver uses it.
 */
final class OperationExtra {

	// the attempts before the latest; allocated only when a second attempt starts
	private List<AttemptRecord> earlier;

	// the latest attempt's tokens after it was permitted, when it is a retry (it took one)
	double tokensAfter;

	Duration totalWait = Duration.ZERO;

	Decision.Retry pendingRetry;

	ProviderGate.Admission.Hold held;

	private ProviderGate queuedAt;

	ProviderGate probing;

	// whether the attempt in flight is a retry holding a budget token, to report its end once (refund or settle)
	boolean tokenHeld;

	// while this retry waits for a token that may come back, or null: made only then
	private TokenWait tokenWait;

	// the instant the provider named, handed on when the operation ended without success; null when none
	NotBefore notBefore;

	// the scheduled retry's wait while it lasts, by cause; null when no retry waits
	private Gap gap;

	/** Joins {@code gate}'s queue unless already in it; {@code false} when the queue is full. */
	boolean queueAt(ProviderGate gate) {
		if (this.queuedAt == null) {
			if (!gate.tryEnqueue()) {
				return false;
			}
			this.queuedAt = gate;
		}
		return true;
	}

	/** Leaves the gate's queue, if the request is in it. */
	void leaveQueue() {
		if (this.queuedAt != null) {
			this.queuedAt.dequeue();
			this.queuedAt = null;
		}
	}

	/**
	 * Reports the probe's answer to its gate ({@code admitted}: the provider admitted it), once.
	 * @return the gate whose probe this request was, {@code null} when it was none or its answer was given
	 */
	ProviderGate endProbe(boolean admitted) {
		ProviderGate gate = takeProbe();
		if (gate != null) {
			gate.probeAnswered(admitted);
		}
		return gate;
	}

	/** The gate whose probe this request is, once: {@code null} when it is none, or its answer was given. */
	ProviderGate takeProbe() {
		ProviderGate gate = this.probing;
		this.probing = null;
		return gate;
	}

	/**
	 * Whether this retry keeps the admission its gate gave it before it had to wait for a token: unless the gate closed
	 * since (a cooldown it must honour), it does not book another slot of the rate.
	 */
	boolean keepsAdmission(long now) {
		TokenWait wait = this.tokenWait;
		if (wait == null || wait.admittedBy == null) {
			return false;
		}
		if (wait.admittedBy.cooldownUntilNanos() - now > 0) {
			wait.admittedBy = null;
			return false;
		}
		return true;
	}

	/** Since when this retry waits for a token; {@code now} if it does not. */
	long tokenWaitSince(long now) {
		return (this.tokenWait != null) ? this.tokenWait.since : now;
	}

	/**
	 * This retry waits for a token held in flight: it withdraws its probe (another request may probe meanwhile), or
	 * keeps the admission of {@code admittedBy}, the gate that admitted it ({@code null} for a probe or with pacing
	 * off); a retry's wait counts the budget's hold from now.
	 */
	void awaitToken(long now, ProviderGate admittedBy) {
		ProviderGate probe = takeProbe();
		if (probe != null) {
			probe.probeWithdrawn();
		}
		if (this.tokenWait == null) {
			this.tokenWait = new TokenWait(now);
		}
		this.tokenWait.admittedBy = admittedBy;
		if (this.gap != null) {
			this.gap.held(now, GateHold.BUDGET, null);
		}
	}

	/**
	 * This retry goes, holding a token or sent without one (a retry the provider asked for, paced by its gate): the
	 * attempt before it joins the earlier ones, and no retry is pending.
	 */
	void retrySent(AttemptRecord previous, double after, boolean token) {
		this.tokenHeld = token;
		this.tokenWait = null;
		if (this.earlier == null) {
			this.earlier = new ArrayList<>();
		}
		this.earlier.add(previous);
		this.pendingRetry = null;
		this.tokensAfter = after;
	}

	/** The attempts before the latest, in order. */
	List<AttemptRecord> earlier() {
		return (this.earlier != null) ? this.earlier : List.of();
	}

	/** {@code earlier} and then {@code latest}, as an immutable list. */
	static List<AttemptRecord> with(List<AttemptRecord> earlier, AttemptRecord latest) {
		List<AttemptRecord> all = new ArrayList<>(earlier.size() + 1);
		all.addAll(earlier);
		all.add(latest);
		return List.copyOf(all);
	}

	/**
	 * A retry was decided after the attempt that ended at {@code nowNanos}: it is pending, its delay counts in the
	 * total wait, and its wait is measured from now, its first part the planned delay's (the field it was planned
	 * from, or the backoff); {@code pause}, what the attempt's response named for the gate, gives a cooldown's cause.
	 */
	void retryScheduled(Decision.Retry retry, GateFeed.Pause pause, long nowNanos) {
		this.totalWait = this.totalWait.plus(retry.delay());
		this.pendingRetry = retry;
		this.gap = new Gap(nowNanos, retry.plan().map((plan) -> WaitCause.of(plan.source())).orElse(WaitCause.BACKOFF),
				pause);
	}

	/** The pending retry's wait, to end as the retry is permitted; {@code null} when there is none. */
	Gap takeGap() {
		Gap gap = this.gap;
		this.gap = null;
		return gap;
	}

	/** {@code gate} holds the request: the hold is kept for its next turn, and a retry's wait counts it from now. */
	void hold(ProviderGate.Admission.Hold hold, ProviderGate gate, long nowNanos) {
		this.held = hold;
		if (this.gap != null) {
			this.gap.held(nowNanos, hold.reason(), gate);
		}
	}

	/** The operation ended: no hold, no retry pending, no wait. */
	void ended() {
		this.held = null;
		this.pendingRetry = null;
		this.gap = null;
	}

	/**
	 * A retry waiting for a token that may come back: since when, and the gate whose admission it keeps (null when the
	 * gate is to be asked again).
	 */
	private static final class TokenWait {

		private final long since;

		private ProviderGate admittedBy;

		TokenWait(long since) {
			this.since = since;
		}

	}

}

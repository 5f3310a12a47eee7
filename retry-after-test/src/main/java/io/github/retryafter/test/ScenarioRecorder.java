package io.github.retryafter.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.github.retryafter.RetryPlan;
import io.github.retryafter.engine.AttemptEvent;
import io.github.retryafter.engine.AttemptOutcome;
import io.github.retryafter.engine.BackoffDraw;
import io.github.retryafter.engine.OperationFinishedEvent;
import io.github.retryafter.engine.RefusalEvent;
import io.github.retryafter.engine.RetryListener;
import io.github.retryafter.engine.RetryScheduledEvent;

/**
 * A {@link RetryListener} that writes what happened as a readable trace: attempt times, per-attempt timeout, remaining
 * deadline, budget tokens before and after, the response, the parsed {@code Retry-After} or the backoff ceiling and
 * draw, the wait, refusals and the final outcome. Times are seconds since the operation started. Print
 * {@link #render()} when a scenario fails and the trace says why.
 * <p>
 * Thread-safe; lines of concurrent operations interleave in the order their events arrive.
 */
public final class ScenarioRecorder implements RetryListener {

	private final List<String> lines = new ArrayList<>();

	private final List<OperationFinishedEvent> finished = new ArrayList<>();

	@Override
	public synchronized void onAttempt(AttemptEvent event) {
		this.lines.add(String.format(Locale.ROOT,
				"[%9s] attempt %d (%s) %s%s: timeout %s, deadline left %s, tokens %s -> %s",
				SecondsText.format(event.elapsed()), event.attempt(), event.kind().name().toLowerCase(Locale.ROOT),
				event.spec().method(), event.idempotencyKey().map((key) -> " key=" + key).orElse(""),
				SecondsText.format(event.timeout()), SecondsText.format(event.remainingDeadline()),
				tokens(event.tokensBefore()), tokens(event.tokensAfter())));
	}

	@Override
	public synchronized void onRetryScheduled(RetryScheduledEvent event) {
		StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "[%9s]   <- %s",
				SecondsText.format(event.elapsed()), describe(event.outcome())));
		if (event.plan().isPresent()) {
			RetryPlan plan = event.plan().get();
			line.append(String.format(Locale.ROOT, ", Retry-After %s: instructed %s, floor %s, jitter %s",
					plan.source(), SecondsText.format(plan.instructed()), SecondsText.format(plan.floor()),
					SecondsText.format(plan.jitter())));
			plan.skew().ifPresent((skew) -> line.append(", server clock skew ").append(SecondsText.format(skew)));
		}
		if (event.draw().isPresent()) {
			BackoffDraw draw = event.draw().get();
			line.append(String.format(Locale.ROOT, ", backoff ceiling %s x draw %.2f = %s",
					SecondsText.format(draw.ceiling()), draw.draw(), SecondsText.format(draw.delay())));
		}
		event.refusedHint().ifPresent((code) -> line.append(", unusable Retry-After (").append(code).append(") ignored"));
		line.append(String.format(Locale.ROOT, " => wait %s [%s], total wait %s, deadline left after wait %s, tokens %s",
				SecondsText.format(event.delay()), event.source(), SecondsText.format(event.totalWait()),
				SecondsText.format(event.remainingDeadline()), tokens(event.budgetTokens())));
		this.lines.add(line.toString());
	}

	@Override
	public synchronized void onRefusal(RefusalEvent event) {
		this.lines.add(String.format(Locale.ROOT, "[%9s]   refused%s%s: %s (tokens %s)",
				SecondsText.format(event.elapsed()),
				event.stop().map((outcome) -> " -> " + outcome).orElse(""),
				event.hintError().map((code) -> " [" + code + "]").orElse(""), event.reason(),
				tokens(event.budgetTokens())));
	}

	@Override
	public synchronized void onOperationFinished(OperationFinishedEvent event) {
		this.finished.add(event);
		this.lines.add(String.format(Locale.ROOT, "[%9s] result: %s, %d attempt(s), %.2f s waiting (%s)",
				SecondsText.format(event.elapsed()), event.outcome(), event.attempts(), seconds(event.totalWait()),
				event.lastOutcome().map(ScenarioRecorder::describe).orElse("no attempt finished")));
	}

	/**
	 * Returns the trace lines so far.
	 * @return an immutable copy
	 */
	public synchronized List<String> lines() {
		return List.copyOf(this.lines);
	}

	/**
	 * Returns the operations that finished, in order.
	 * @return an immutable copy
	 */
	public synchronized List<OperationFinishedEvent> finished() {
		return List.copyOf(this.finished);
	}

	/**
	 * Returns the trace as text, one event per line.
	 * @return the trace
	 */
	public synchronized String render() {
		return String.join(System.lineSeparator(), this.lines);
	}

	@Override
	public String toString() {
		return render();
	}

	private static String describe(AttemptOutcome outcome) {
		if (outcome instanceof AttemptOutcome.Response response) {
			List<String> retryAfter = response.hints().retryAfterLines();
			return response.status() + (retryAfter.isEmpty() ? ", no Retry-After"
					: ", Retry-After: " + String.join(" | ", retryAfter).strip());
		}
		AttemptOutcome.Failure failure = (AttemptOutcome.Failure) outcome;
		return failure.kind() + " (" + failure.cause().getMessage() + ")";
	}

	/** Seconds as a {@code double}, for two decimals: every {@code Duration}, also those past a long of nanos. */
	private static double seconds(Duration duration) {
		return duration.getSeconds() + duration.getNano() / 1e9;
	}


	private static String tokens(double tokens) {
		return Double.isInfinite(tokens) ? "unlimited" : String.format(Locale.ROOT, "%.2f", tokens);
	}

}

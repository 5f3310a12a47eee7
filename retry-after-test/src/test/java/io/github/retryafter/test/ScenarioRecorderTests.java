package io.github.retryafter.test;

import java.time.Duration;
import java.util.Optional;

import io.github.retryafter.engine.AttemptEvent;
import io.github.retryafter.engine.AttemptKind;
import io.github.retryafter.engine.OperationFinishedEvent;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.Outcome;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ScenarioRecorderTests {

	/** About 317 million years: far past the 292 years a long of nanoseconds holds. */
	private static final Duration EONS = Duration.ofSeconds(10_000_000_000_000_000L);

	@Test
	void aPlanHundredsOfMillionsOfYearsLongIsWrittenNotOverflowed() {
		ScenarioRecorder recorder = new ScenarioRecorder();
		OperationSpec spec = OperationSpec.of("GET");
		recorder.onAttempt(new AttemptEvent(spec, 2, AttemptKind.RETRY, Optional.empty(), SecondsText.MAX,
				EONS, 1, 0, EONS));
		recorder.onOperationFinished(new OperationFinishedEvent(spec, Outcome.DEADLINE_EXCEEDED, "too long", 2, EONS,
				EONS.plusMillis(1500), Optional.empty()));

		assertThat(recorder.lines()).containsExactly(
				"[10000000000000000.000 s] attempt 2 (retry) GET: timeout 9223372036854775807.999 s, deadline left "
						+ "10000000000000000.000 s, tokens 1.00 -> 0.00",
				"[10000000000000001.500 s] result: DEADLINE_EXCEEDED, 2 attempt(s), 10000000000000000.00 s waiting "
						+ "(no attempt finished)");
	}

	@Test
	void shortTimesKeepTheirAlignedThreeDecimals() {
		ScenarioRecorder recorder = new ScenarioRecorder();
		recorder.onOperationFinished(new OperationFinishedEvent(OperationSpec.of("GET"), Outcome.SUCCESS, "ok", 1,
				Duration.ofMillis(450), Duration.ofMillis(1_250), Optional.empty()));

		assertThat(recorder.lines()).containsExactly("[  1.250 s] result: SUCCESS, 1 attempt(s), 0.45 s waiting "
				+ "(no attempt finished)");
	}

}

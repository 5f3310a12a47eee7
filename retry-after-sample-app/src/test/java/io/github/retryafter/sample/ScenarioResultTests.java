package io.github.retryafter.sample;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.retryafter.sample.ScenarioResult.Herd;
import io.github.retryafter.sample.ScenarioResult.OperationResult;

import static org.assertj.core.api.Assertions.assertThat;

class ScenarioResultTests {

	private static final Scenario HERD = Scenario.named("herd").orElseThrow();

	@Test
	void measuresTheHerdOverASlidingWindowSoABinBoundaryDoesNotSplitIt() {
		List<Arrival> arrivals = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			arrivals.add(new Arrival(i, "op-" + i, 1, 503));
		}
		arrivals.add(new Arrival(2005, "op-0", 2, 200));
		arrivals.add(new Arrival(2008, "op-1", 2, 200));
		arrivals.add(new Arrival(2012, "op-2", 2, 200));
		arrivals.add(new Arrival(2300, "op-3", 2, 200));
		ScenarioResult result = result(arrivals, List.of());
		assertThat(result.herd()).isEqualTo(new Herd(3, 4, 2005));
		assertThat(result.herd().share()).isEqualTo(0.75);
		int[][] bins = result.bins();
		assertThat(bins[1][200]).as("2000-2010 ms").isEqualTo(2);
		assertThat(bins[1][201]).as("2010-2020 ms").isEqualTo(1);
		assertThat(bins[0][0]).isEqualTo(4);
		assertThat(bins[0]).hasSize(231);
	}

	@Test
	void windowExcludesARetryExactlyTenMillisecondsLater() {
		ScenarioResult result = result(List.of(new Arrival(100, "a", 2, 200), new Arrival(110, "b", 2, 200)),
				List.of());
		assertThat(result.herd().retries()).isEqualTo(1);
	}

	@Test
	void summarisesOutcomesAttemptsAndAmplification() {
		ScenarioResult result = result(List.of(), List.of(new OperationResult("a", "SUCCESS", 2),
				new OperationResult("b", "SUCCESS", 1), new OperationResult("c", "BUDGET_EXHAUSTED", 1)));
		assertThat(result.attempts()).isEqualTo(4);
		assertThat(result.amplification()).isEqualTo(4 / 3.0);
		assertThat(result.outcomes()).containsExactly(java.util.Map.entry("BUDGET_EXHAUSTED", 1L),
				java.util.Map.entry("SUCCESS", 2L));
		assertThat(result.herd().describe()).isEqualTo("no retries");
		assertThat(result.table()).contains("amplification  1.33").contains("outcomes       BUDGET_EXHAUSTED=1 SUCCESS=2");
	}

	private static ScenarioResult result(List<Arrival> arrivals, List<OperationResult> operations) {
		return new ScenarioResult(HERD, "EXACT", operations, arrivals, 2500);
	}

}

package io.github.retryafter.simulator;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class WorkloadTests {

	@Test
	void everyNameGivesItsWorkloadWithTheClientsAskedFor() {
		assertThat(Workload.names()).containsExactlyInAnyOrder("episodes", "shared", "outage-rate-limit",
				"announced-quota", "openai", "sliding-window");
		for (String name : Workload.names()) {
			Workload workload = Workload.named(name, 7);
			assertThat(workload.name()).isEqualTo(name);
			assertThat(workload.clients()).isEqualTo(7);
		}
		assertThat(Workload.named("Outage-Rate-Limit", 3)).isEqualTo(Workload.outageThenRateLimit(3));
	}

	@Test
	void anUnknownNameIsRefusedWithTheNamesThatExist() {
		assertThatIllegalArgumentException().isThrownBy(() -> Workload.named("burst", 10))
			.withMessage("workload must be episodes, shared, outage-rate-limit, announced-quota, openai or sliding-window, not \"burst\"");
	}

}

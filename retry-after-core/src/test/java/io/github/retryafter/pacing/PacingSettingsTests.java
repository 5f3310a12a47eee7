package io.github.retryafter.pacing;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class PacingSettingsTests {

	@Test
	void defaultsHoldAndOffIsTheDefaultsTurnedOff() {
		assertThat(PacingSettings.DEFAULTS.mode()).isEqualTo(PacingMode.HOLD);
		assertThat(PacingSettings.DEFAULTS.enabled()).isTrue();
		assertThat(PacingSettings.OFF.enabled()).isFalse();
		assertThat(PacingSettings.OFF.toBuilder().mode(PacingMode.HOLD).build()).isEqualTo(PacingSettings.DEFAULTS);
	}

	@Test
	void settersRejectBadValuesAtOnceNamingTheSetting() {
		PacingSettings.Builder builder = PacingSettings.builder();
		assertThatIllegalArgumentException().isThrownBy(() -> builder.minRate(0)).withMessageContaining("minRate");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.maxRate(Double.NaN))
			.withMessageContaining("maxRate");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.burst(0)).withMessageContaining("burst");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.freshShare(1)).withMessageContaining("freshShare");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.decreaseFactor(1))
			.withMessageContaining("decreaseFactor");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.growthScale(-1))
			.withMessageContaining("growthScale");
	}

	@Test
	void buildRejectsAMinimumAboveTheMaximum() {
		assertThatIllegalArgumentException().isThrownBy(() -> PacingSettings.builder().minRate(50).maxRate(10).build())
			.withMessageContaining("maxRate must be finite and at least minRate (50.0)");
	}

}

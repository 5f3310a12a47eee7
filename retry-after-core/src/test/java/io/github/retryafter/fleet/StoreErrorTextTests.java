package io.github.retryafter.fleet;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 32, defect 4: the store's last error, shown in logs, the endpoint and health details, is one short line
 * whatever the error echoed.
 */
class StoreErrorTextTests {

	@Test
	void aHugeOrHostileStoreErrorIsCutAndItsControlCharactersReplaced() {
		assertThat(ErrorText.cut("ERR unknown command")).isEqualTo("ERR unknown command");
		String echoed = "ERR wrong key \u001b[2J\n" + "k".repeat(300_000);
		String shown = ErrorText.cut(echoed);
		assertThat(shown).startsWith("ERR wrong key ?[2J?kkk").doesNotContain("\u001b").doesNotContain("\n");
		assertThat(shown).endsWith("…(+" + (echoed.length() - ErrorText.MAX_ERROR_TEXT) + " chars)");
		assertThat(shown.length()).isLessThan(ErrorText.MAX_ERROR_TEXT + 30);
	}

}

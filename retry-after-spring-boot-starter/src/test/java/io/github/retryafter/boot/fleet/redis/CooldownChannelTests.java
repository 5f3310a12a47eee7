package io.github.retryafter.boot.fleet.redis;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reading the cooldown channel's messages: what the script writes is read whole, whatever the id and the provider
 * hold; anything else is not the fleet's and reads as empty, never as an exception.
 */
class CooldownChannelTests {

	@Test
	void aMessageAsTheScriptWritesItIsReadWholeWhateverItsIdAndProviderHold() {
		CooldownChannel.Announcement read = parse("1764892800000000 1764892802000000 9 an id :)pay ments é").orElseThrow();
		assertThat(read.storeNow()).isEqualTo(1764892800000000L);
		assertThat(read.until()).isEqualTo(1764892802000000L);
		assertThat(new String(read.instanceId(), StandardCharsets.UTF_8)).isEqualTo("an id :)p");
		assertThat(read.provider()).isEqualTo("ay ments é");
	}

	@Test
	void anythingElseIsNotTheFleetsAndReadsAsEmpty() {
		assertThat(parse("")).isEmpty();
		assertThat(parse("not the fleet's")).isEmpty();
		assertThat(parse("1 2 3")).as("no id").isEmpty();
		assertThat(parse("1 2 3 abc")).as("no provider after the id").isEmpty();
		assertThat(parse("1 2 0 default")).as("no id").isEmpty();
		assertThat(parse("0 2 1 adefault")).isEmpty();
		assertThat(parse("1 0 1 adefault")).isEmpty();
		assertThat(parse("1 -2 1 adefault")).isEmpty();
		assertThat(parse("1 2.5 1 adefault")).isEmpty();
		assertThat(parse("1 9999999999999999999 1 adefault")).as("beyond a long").isEmpty();
		assertThat(parse("1  2 1 adefault")).isEmpty();
		assertThat(parse("1 2 1 a" + "x".repeat(CooldownChannel.MAX_MESSAGE_BYTES))).as("longer than the fleet writes")
			.isEmpty();
		assertThat(CooldownChannel.Announcement.parse(null)).isEmpty();
		assertThat(parse("1 2 1 ad")).as("the shortest the fleet writes").isPresent();
	}

	private static Optional<CooldownChannel.Announcement> parse(String message) {
		return CooldownChannel.Announcement.parse(message.getBytes(StandardCharsets.UTF_8));
	}

}

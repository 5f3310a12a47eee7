package io.github.retryafter.pacing;

import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import io.github.retryafter.Scope;
import io.github.retryafter.pacing.ProviderGate.Admission;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The slot book on its own: two lanes of slots booked at a rate, and the send lane that spaces the actual sends.
 */
class SlotBookTests {

	private static final long MS = 1_000_000L;

	private static final long FAR = 1_000_000 * MS;

	private final AtomicReference<Pace> state = new AtomicReference<>();

	private SlotBook book(double rate, int burst, double freshShare) {
		PacingSettings settings = PacingSettings.builder().maxRate(1000).burst(burst).freshShare(freshShare).build();
		this.state.set(new Pace(new Rate(true, Curve.at(rate, rate, false, 0), 0, true, null, 0, false),
				new Lanes(1, 0, 0, 0, Timeline.NONE)));
		return new SlotBook(Scope.provider("p"), settings, new GateShare(settings), this.state, new Object(), 0);
	}

	@Test
	void retriesTakeOneSlotEachIntervalAndHoldUntilTheirsComes() {
		SlotBook book = book(10, 1, 0);
		assertThat(book.reserve(false, 0, FAR)).isEqualTo(Admission.GO);
		assertThat(book.reserve(false, 0, FAR)).isEqualTo(new Admission.Hold(100 * MS, GateHold.RATE, 1, 100 * MS));
		// a slot more than 100 ms away: ask again half-way there, keeping the slot
		assertThat(book.reserve(false, 0, FAR)).isEqualTo(new Admission.Hold(100 * MS, GateHold.RATE, 1, 200 * MS));
	}

	@Test
	void aFreshRequestTakesItsOwnLaneWhenTheRetryLaneIsBooked() {
		SlotBook book = book(10, 1, 0.1);
		for (int i = 0; i < 5; i++) {
			book.reserve(false, 0, FAR);
		}
		assertThat(book.reserve(true, 0, FAR)).isEqualTo(Admission.GO);
		assertThat(this.state.get().lanes().freshTat()).isEqualTo(1000 * MS);
		assertThat(this.state.get().lanes().freshUntil()).isEqualTo(SlotBook.FRESH_ACTIVITY.toNanos());
	}

	@Test
	void aSlotPastTheLastUsefulStartIsRefusedAndNothingIsBooked() {
		SlotBook book = book(10, 1, 0);
		book.reserve(false, 0, FAR);
		Lanes before = this.state.get().lanes();
		assertThat(book.reserve(false, 0, 50 * MS)).isInstanceOfSatisfying(Admission.Refuse.class,
				(refuse) -> assertThat(refuse.reason()).contains("paced at 10.0 requests/s").contains("next slot is"));
		assertThat(this.state.get().lanes()).isEqualTo(before);
	}

	@Test
	void holdersWokenLateTogetherGoSpacedByTheSendLane() {
		SlotBook book = book(10, 1, 0);
		assertThat(book.reserve(false, 0, FAR)).isEqualTo(Admission.GO);
		Admission.Hold first = (Admission.Hold) book.reserve(false, 0, FAR);
		Admission.Hold second = (Admission.Hold) book.reserve(false, 0, FAR);
		Admission.Hold third = (Admission.Hold) book.reserve(false, 0, FAR);
		// the client stalled for a second: every slot has passed, and the send lane lets two bursts go at once
		Pace current = this.state.get();
		assertThat(book.kept(current, first, 1000 * MS, FAR)).isEqualTo(Admission.GO);
		assertThat(book.kept(current, second, 1000 * MS, FAR)).isEqualTo(Admission.GO);
		assertThat(book.kept(current, third, 1000 * MS, FAR)).isInstanceOfSatisfying(Admission.Hold.class,
				(hold) -> assertThat(hold.untilNanos()).isEqualTo(1100 * MS));
	}

	@Test
	void aHeldSlotThatHasNotComeIsKeptAsIs() {
		SlotBook book = book(10, 1, 0);
		book.reserve(false, 0, FAR);
		Admission.Hold held = (Admission.Hold) book.reserve(false, 0, FAR);
		assertThat(book.kept(this.state.get(), held, 50 * MS, FAR)).isSameAs(held);
	}

	@Test
	void startByBringsLanesSetToRestartLaterBackToNow() {
		SlotBook book = book(10, 1, 0);
		this.state.set(this.state.get().with(this.state.get().lanes().next(5000 * MS, 6000 * MS)));
		book.startBy(1000 * MS);
		assertThat(this.state.get().lanes().retryTat()).isEqualTo(1000 * MS);
		assertThat(this.state.get().lanes().freshTat()).isEqualTo(1000 * MS);
		book.startBy(2000 * MS);
		assertThat(this.state.get().lanes().retryTat()).as("a lane already behind now stays").isEqualTo(1000 * MS);
	}

	@Test
	void theRateLimitsTheSendingOnlyWhileARequestReservingNowWouldWait() {
		SlotBook book = book(10, 1, 0);
		assertThat(book.limited(this.state.get(), 0)).isFalse();
		book.reserve(false, 0, FAR);
		assertThat(book.limited(this.state.get(), 0)).isTrue();
		assertThat(book.limited(this.state.get(), 100 * MS)).isFalse();
	}

	@Test
	void restartedLanesHaveNoBurstLeftAndVoidTheSlotsBooked() {
		SlotBook book = book(10, 4, 0);
		Lanes restarted = book.restarted(this.state.get().lanes(), 10, 0);
		assertThat(restarted.epoch()).isEqualTo(2);
		assertThat(restarted.retryTat()).as("three slots of tolerance already used").isEqualTo(300 * MS);
		assertThat(restarted.timeline()).isSameAs(Timeline.NONE);
	}

}

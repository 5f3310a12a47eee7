package io.github.retryafter.boot.metrics;

import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

import io.micrometer.core.instrument.MeterRegistry;

/**
 * One provider's counts of one meter tagged by an enum: a value's series is registered on the value's first event,
 * in every registry bound by then and in each one bound later, and counts from that event; a value that never happens
 * has no series. The series stay bounded: at most one per value of the enum for each configured provider.
 * Thread-safe: counting a value that has happened is one volatile read and an add; a first event, and binding, take
 * the monitor of the registries they share.
 * @param <E> the enum whose values tag the series
 */
final class CountsOnFirstUse<E extends Enum<E>> {

	/** Registers one value's series, a function counter over its adder, in a registry. */
	@FunctionalInterface
	interface Binder<E> {

		void bind(MeterRegistry registry, E value, LongAdder adder);

	}

	private final E[] values;

	private final Binder<E> binder;

	private final List<MeterRegistry> registries;

	// by ordinal; null until the value's first event: at most values.length adders, never removed
	private final AtomicReferenceArray<LongAdder> adders;

	/**
	 * Creates the counts of one provider's meter.
	 * @param type the enum
	 * @param binder registers a value's series in a registry
	 * @param registries the registries bound so far, shared by every meter of the binder, whose monitor guards them
	 */
	CountsOnFirstUse(Class<E> type, Binder<E> binder, List<MeterRegistry> registries) {
		this.values = type.getEnumConstants();
		this.binder = binder;
		this.registries = registries;
		this.adders = new AtomicReferenceArray<>(this.values.length);
	}

	/**
	 * Counts an event of {@code value}, registering its series in every bound registry if it is the first.
	 * @param value the value that happened
	 */
	void increment(E value) {
		LongAdder adder = this.adders.get(value.ordinal());
		((adder != null) ? adder : firstUse(value)).increment();
	}

	private LongAdder firstUse(E value) {
		synchronized (this.registries) {
			LongAdder adder = this.adders.get(value.ordinal());
			if (adder == null) {
				adder = new LongAdder();
				for (MeterRegistry registry : this.registries) {
					this.binder.bind(registry, value, adder);
				}
				this.adders.set(value.ordinal(), adder);
			}
			return adder;
		}
	}

	/**
	 * Registers the series of every value that has happened in a registry being bound; call holding the monitor of
	 * the shared registries, after adding {@code registry} to them.
	 * @param registry the registry being bound
	 */
	void bindTo(MeterRegistry registry) {
		for (E value : this.values) {
			LongAdder adder = this.adders.get(value.ordinal());
			if (adder != null) {
				this.binder.bind(registry, value, adder);
			}
		}
	}

}

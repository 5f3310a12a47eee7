package io.github.retryafter;

import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Which response fields a provider's responses are read for: a set of {@link HintField}s, so a provider profile is a
 * row of data, not code. {@link #STANDARD} is what the library has always read ({@code Retry-After} and the standard
 * rate-limit families); the vendor fields are read only when named. Immutable and thread-safe.
 *
 * @param read the field groups read; a group outside it is never read
 */
public record HintFields(Set<HintField> read) {

	/** {@code Retry-After} and the standard rate-limit families: the default, what every release before read. */
	public static final HintFields STANDARD = of(HintField.RETRY_AFTER, HintField.RATE_LIMIT);

	/** Every field group the library can read. */
	public static final HintFields ALL = of(HintField.values());

	/**
	 * Checks and copies the set.
	 * @param read the field groups read; a group outside it is never read
	 */
	public HintFields {
		read = Collections.unmodifiableSet(EnumSet.copyOf(Objects.requireNonNull(read, "read").isEmpty()
				? EnumSet.noneOf(HintField.class) : read));
	}

	/**
	 * Returns the set of the given groups.
	 * @param fields the groups
	 * @return the set
	 */
	public static HintFields of(HintField... fields) {
		EnumSet<HintField> set = EnumSet.noneOf(HintField.class);
		set.addAll(Arrays.asList(fields));
		return new HintFields(set);
	}

	/**
	 * Returns this set with more groups.
	 * @param fields the groups to add
	 * @return a new set
	 */
	public HintFields with(HintField... fields) {
		EnumSet<HintField> set = EnumSet.noneOf(HintField.class);
		set.addAll(this.read);
		set.addAll(Arrays.asList(fields));
		return new HintFields(set);
	}

	/**
	 * Returns whether a body field is read for a response of this status: only when a group of the set is read from
	 * the body ({@link HintField#inBody()}) and the status is a refusal ({@code 429}, or {@code 5xx}). A transport
	 * hands a {@link BodySource} over only then, so a success's body is never touched.
	 * @param status the response's status
	 * @return {@code true} when the body's first bytes are to be read
	 */
	public boolean readsBodyOf(int status) {
		return (status == 429 || status >= 500) && this.read.stream().anyMatch(HintField::inBody);
	}

	/**
	 * Returns whether a group is read.
	 * @param field the group
	 * @return {@code true} when it is in the set
	 */
	public boolean reads(HintField field) {
		return this.read.contains(field);
	}

}

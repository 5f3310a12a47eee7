package io.github.retryafter.cli;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One subcommand's named options, each mapped to what its value sets: parses {@code --name value} and
 * {@code --name=value}, and {@code --help} or {@code -h} as a request for help. A name that is not an option is
 * refused as unknown, an option without a value as needing one, and a bad value by the option's own setter; each
 * refusal is an {@link IllegalArgumentException} whose message the command line prints.
 * <p>
 * Not thread-safe: built and used by one parse.
 */
final class Options {

	/** What an option's value sets. */
	@FunctionalInterface
	interface Setter {

		/**
		 * Sets the option from its value.
		 * @param name the option, as given (for messages)
		 * @param value its value
		 * @throws IllegalArgumentException naming the option when the value is unusable
		 */
		void set(String name, String value);

	}

	/** The subcommand's options by name: filled while built, one entry per option (a handful). */
	private final Map<String, Setter> setters = new HashMap<>();

	private final boolean helpEndsParsing;

	/**
	 * Creates a subcommand's options.
	 * @param helpEndsParsing whether {@code --help} stops the parse there ({@code simulate}) or the rest is still
	 * parsed and checked ({@code explain})
	 */
	Options(boolean helpEndsParsing) {
		this.helpEndsParsing = helpEndsParsing;
	}

	/**
	 * Adds an option.
	 * @param name its name, with the leading {@code --}
	 * @param setter what its value sets
	 * @return this
	 */
	Options option(String name, Setter setter) {
		this.setters.put(name, setter);
		return this;
	}

	/**
	 * Parses the arguments, setting each option given.
	 * @param args the arguments after the subcommand
	 * @return whether help was asked for
	 * @throws IllegalArgumentException for an unknown option, a missing value or a value its setter refuses
	 */
	boolean parse(String[] args) {
		boolean help = false;
		for (int i = 0; i < args.length; i++) {
			String name = args[i];
			String value = null;
			int equals = name.indexOf('=');
			if (name.startsWith("--") && equals > 0) {
				value = name.substring(equals + 1);
				name = name.substring(0, equals);
			}
			if (name.equals("--help") || name.equals("-h")) {
				help = true;
				if (this.helpEndsParsing) {
					return true;
				}
				continue;
			}
			Setter setter = this.setters.get(name);
			if (setter == null) {
				throw new IllegalArgumentException("unknown option \"" + name + "\"");
			}
			if (value == null) {
				if (i + 1 >= args.length) {
					throw new IllegalArgumentException(name + " needs a value");
				}
				value = args[++i];
			}
			setter.set(name, value);
		}
		return help;
	}

	/**
	 * Reads a whole number.
	 * @param name the option, for the message
	 * @param value its value
	 * @param min the least value allowed
	 * @return the number
	 * @throws IllegalArgumentException when it is not a whole number or below {@code min}
	 */
	static long number(String name, String value, long min) {
		long parsed;
		try {
			parsed = Long.parseLong(value);
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException(name + " needs a whole number, not \"" + value + "\"");
		}
		if (parsed < min) {
			throw new IllegalArgumentException(name + " must be at least " + min + ", not " + parsed);
		}
		return parsed;
	}

	/**
	 * Reads one of an enum's constants as the command line spells them: lower case, {@code -} for {@code _}
	 * ({@code trust-client-clock} for {@code TRUST_CLIENT_CLOCK}).
	 * @param <E> the enum
	 * @param name the option, for the message
	 * @param value its value
	 * @param constants the enum's constants, in the order the message lists them
	 * @return the constant
	 * @throws IllegalArgumentException listing the spellings when none matches
	 */
	static <E extends Enum<E>> E spelled(String name, String value, E[] constants) {
		StringBuilder expected = new StringBuilder();
		for (int i = 0; i < constants.length; i++) {
			String spelling = constants[i].name().toLowerCase(Locale.ROOT).replace('_', '-');
			if (spelling.equals(value)) {
				return constants[i];
			}
			expected.append((i == 0) ? "" : (i == constants.length - 1) ? " or " : ", ").append(spelling);
		}
		throw new IllegalArgumentException(name + " must be " + expected + ", not \"" + value + "\"");
	}

}

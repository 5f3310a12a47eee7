package io.github.retryafter.engine;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import io.github.retryafter.HintField;
import io.github.retryafter.HintFields;

/**
 * What a provider's API means, as one row of data: the response fields read ({@link HintFields}), the statuses retried
 * on top of those in force (Anthropic's {@code 529 overloaded}), its {@link ProviderConventions} (which refusals
 * are retried for any method, the attempt header), and how long its calls may take ({@link CallTimeouts}: a model
 * API's completions are long, so the client's own timeouts bound them). {@link #ALL} is the table: adding a profile is
 * one more row.
 * <p>
 * A profile is a set of defaults, not a policy: whoever applies it lets any single setting be overridden (the starter
 * lays a provider's own properties over its profile). {@link #STANDARD} changes nothing: it is what every release
 * before profiles did. Immutable and thread-safe.
 *
 * @param name the profile's name, lower case, as configured
 * @param fields the response fields read for the wait, the should-retry say and the rate-limit windows
 * @param addedRetryableStatuses statuses retried in addition to the retryable statuses in force
 * @param conventions the provider's refusals and attempt header
 * @param timeouts whose timeouts bound an attempt, and the deadline that fits the provider's calls
 */
public record ProviderProfile(String name, HintFields fields, Set<Integer> addedRetryableStatuses,
		ProviderConventions conventions, CallTimeouts timeouts) {

	private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]{0,31}");

	/** The header the OpenAI and Anthropic SDKs send each attempt's retry count in. */
	public static final String STAINLESS_RETRY_COUNT = "x-stainless-retry-count";

	/**
	 * {@code Retry-After} and the standard rate-limit families; no status added; no refusal retried for any method;
	 * the attempt timeout and deadline in force.
	 */
	public static final ProviderProfile STANDARD = new ProviderProfile("standard", HintFields.STANDARD, Set.of(),
			ProviderConventions.NONE, CallTimeouts.STANDARD);

	/**
	 * OpenAI and OpenAI-compatible gateways: {@code Retry-After}, {@code retry-after-ms}, {@code x-should-retry}, the
	 * request and token windows; {@code 429} and {@code 503} retried for any method; the SDK's attempt header; model
	 * calls' timeouts.
	 */
	public static final ProviderProfile OPENAI = new ProviderProfile("openai",
			HintFields.of(HintField.RETRY_AFTER, HintField.RETRY_AFTER_MS, HintField.X_SHOULD_RETRY,
					HintField.OPENAI_WINDOWS),
			Set.of(), refusals(Set.of(429, 503), STAINLESS_RETRY_COUNT), CallTimeouts.MODEL_CALLS);

	/**
	 * Anthropic: {@code retry-after}, {@code x-should-retry}, the {@code anthropic-ratelimit-*} windows; {@code 529}
	 * retried; {@code 429} and {@code 529} retried for any method; the SDK's attempt header; model calls' timeouts.
	 */
	public static final ProviderProfile ANTHROPIC = new ProviderProfile("anthropic",
			HintFields.of(HintField.RETRY_AFTER, HintField.X_SHOULD_RETRY, HintField.ANTHROPIC_WINDOWS), Set.of(529),
			refusals(Set.of(429, 529), STAINLESS_RETRY_COUNT), CallTimeouts.MODEL_CALLS);

	/**
	 * Azure (OpenAI and others): {@code retry-after-ms}, {@code x-ms-retry-after-ms}, {@code Retry-After};
	 * {@code 429} retried for any method; model calls' timeouts (Azure OpenAI's completions are as long as OpenAI's).
	 */
	public static final ProviderProfile AZURE = new ProviderProfile("azure",
			HintFields.of(HintField.RETRY_AFTER_MS, HintField.X_MS_RETRY_AFTER_MS, HintField.RETRY_AFTER), Set.of(),
			refusals(Set.of(429), null), CallTimeouts.MODEL_CALLS);

	/**
	 * Stripe: the standard fields and {@code Stripe-Should-Retry}, which can make a {@code 409} retryable or a
	 * {@code 503} final; {@code 429} retried for any method.
	 */
	public static final ProviderProfile STRIPE = new ProviderProfile("stripe",
			HintFields.STANDARD.with(HintField.STRIPE_SHOULD_RETRY), Set.of(), refusals(Set.of(429), null),
			CallTimeouts.STANDARD);

	/**
	 * GitHub: the standard fields (its {@code X-RateLimit-Reset} is epoch seconds, its secondary limits send
	 * {@code Retry-After}); {@code 403} retried, because GitHub refuses over a limit with {@code 403} or {@code 429};
	 * both retried for any method. A {@code 403} that is a permission error is then retried too, up to
	 * {@code maxAttempts}: drop it with the provider's own retryable and refusal statuses if that costs too much.
	 */
	public static final ProviderProfile GITHUB = new ProviderProfile("github", HintFields.STANDARD, Set.of(403),
			refusals(Set.of(403, 429), null), CallTimeouts.STANDARD);

	/**
	 * Ollama, a model server the application runs itself: the standard fields (Ollama sends none, a proxy in front of
	 * it may); {@code 503} (busy: its queue is full, or a model is loading) and {@code 429} (a rate-limiting proxy or
	 * Ollama's cloud) retried for any method, because both refuse the request before it runs; no attempt header;
	 * model calls' timeouts (a local model's completion is as long as a hosted one's).
	 */
	public static final ProviderProfile OLLAMA = new ProviderProfile("ollama", HintFields.STANDARD, Set.of(),
			refusals(Set.of(429, 503), null), CallTimeouts.MODEL_CALLS);

	/**
	 * Google Gemini (the Gemini API and Vertex AI): {@code Retry-After} and the {@code google.rpc.RetryInfo} of a
	 * refusal's JSON body; {@code 429 RESOURCE_EXHAUSTED} and {@code 503 UNAVAILABLE} retried for any method, since
	 * model calls are POSTs and Google's APIs answer both before the request is processed (its guidance names
	 * {@code UNAVAILABLE} as the code to retry); {@code 500} and {@code 504} may have been processed and are not;
	 * model calls' timeouts.
	 */
	public static final ProviderProfile GEMINI = new ProviderProfile("gemini",
			HintFields.of(HintField.RETRY_AFTER, HintField.GOOGLE_RETRY_INFO), Set.of(), refusals(Set.of(429, 503), null),
			CallTimeouts.MODEL_CALLS);

	/** Every profile, {@link #STANDARD} first: the table. */
	public static final List<ProviderProfile> ALL = List.of(STANDARD, OPENAI, ANTHROPIC, AZURE, STRIPE, GITHUB,
			OLLAMA, GEMINI);

	/**
	 * Checks and copies the arguments.
	 * @param name the profile's name: lower case letters, digits and '-', starting with a letter
	 * @param fields the response fields read
	 * @param addedRetryableStatuses statuses retried in addition to those in force
	 * @param conventions the provider's refusals and attempt header
	 * @param timeouts whose timeouts bound an attempt, and the deadline that fits the provider's calls
	 * @throws IllegalArgumentException if the name is not as described or a status is outside 400–599
	 */
	public ProviderProfile {
		if (name == null || !NAME.matcher(name).matches()) {
			throw new IllegalArgumentException("a profile's name must be 1 to 32 lower case letters, digits or '-', "
					+ "starting with a letter, but was '" + name + "'");
		}
		Objects.requireNonNull(fields, "fields");
		addedRetryableStatuses = Set.copyOf(PolicyChecks.statuses("addedRetryableStatuses", addedRetryableStatuses));
		Objects.requireNonNull(conventions, "conventions");
		Objects.requireNonNull(timeouts, "timeouts");
	}

	/**
	 * Creates a profile whose calls are as long as any: {@link CallTimeouts#STANDARD}.
	 * @param name the profile's name: lower case letters, digits and '-', starting with a letter
	 * @param fields the response fields read
	 * @param addedRetryableStatuses statuses retried in addition to those in force
	 * @param conventions the provider's refusals and attempt header
	 * @throws IllegalArgumentException if the name is not as described or a status is outside 400–599
	 */
	public ProviderProfile(String name, HintFields fields, Set<Integer> addedRetryableStatuses,
			ProviderConventions conventions) {
		this(name, fields, addedRetryableStatuses, conventions, CallTimeouts.STANDARD);
	}

	/**
	 * Returns the profile of a name in {@link #ALL}, case-insensitively.
	 * @param name the name, as configured
	 * @return the profile, or empty when no profile has that name
	 */
	public static Optional<ProviderProfile> named(String name) {
		String wanted = (name != null) ? name.trim().toLowerCase(Locale.ROOT) : "";
		return ALL.stream().filter((profile) -> profile.name().equals(wanted)).findFirst();
	}

	/**
	 * Returns the names of every profile in {@link #ALL}, in its order.
	 * @return the names
	 */
	public static List<String> names() {
		return ALL.stream().map(ProviderProfile::name).toList();
	}

	/**
	 * Returns the statuses retried under this profile: those in force and {@link #addedRetryableStatuses()}.
	 * @param inForce the retryable statuses in force without the profile
	 * @return the union, sorted
	 */
	public Set<Integer> retryableStatuses(Set<Integer> inForce) {
		Set<Integer> union = new TreeSet<>(inForce);
		union.addAll(this.addedRetryableStatuses);
		return union;
	}

	private static ProviderConventions refusals(Set<Integer> statuses, String attemptHeader) {
		return new ProviderConventions(true, statuses, Optional.ofNullable(attemptHeader));
	}

}

package io.github.retryafter.boot.actuate;

import java.time.Duration;
import java.util.List;
import java.util.TreeSet;

import io.github.retryafter.HintField;
import io.github.retryafter.boot.ProviderSettings;
import io.github.retryafter.engine.HintMode;
import io.github.retryafter.engine.RetryPolicy;

/**
 * The settings in force for a provider.
 * <p>
 * Immutable: a snapshot written to JSON by the {@code retryafter} endpoint, as the {@code settings} of a
 * {@link RetryAfterEndpoint.ProviderDescriptor}.
 *
 * @param hosts the hosts it serves
 * @param maxAttempts the most attempts, counting the first
 * @param deadline the operation's deadline
 * @param attemptTimeout the longest one attempt may take
 * @param totalWait the most waiting one operation may do
 * @param maxWait the longest {@code Retry-After} accepted, or {@code null} for none
 * @param hintMode how a {@code Retry-After} becomes a wait
 * @param hintCap the cap in {@code CAPPED} mode, or {@code null} in any other mode
 * @param jitter how clients are spread above the server's floor
 * @param backoffBase the fallback backoff's first ceiling
 * @param backoffMax the fallback backoff's largest ceiling
 * @param retryableStatuses the statuses retried
 * @param retryableMethods the methods replayed without an idempotency key
 * @param idempotencyKeyEnabled whether POST and PATCH get an idempotency key
 * @param idempotencyKeyHeader the header carrying it
 * @param maxReplayBodyBytes the largest body buffered for replay
 * @param hintFields the groups of response fields read (its profile's, or its {@code hint-fields}), as
 * {@code hint-fields} names them
 * @param retryRefusedRequests whether a refusal status is retried for any method
 * @param refusalStatuses the statuses that mean the provider refused a request before processing it
 * @param attemptHeader the header each attempt's retry count is sent in, or {@code null} for none
 * @param clientTimeouts whether the client's own timeouts bound each attempt rather than {@code attemptTimeout}
 * (a model profile's, unless the provider sets its own {@code attempt-timeout})
 */
public record SettingsDescriptor(List<String> hosts, int maxAttempts, String deadline, String attemptTimeout,
		String totalWait, String maxWait, String hintMode, String hintCap, String jitter, String backoffBase,
		String backoffMax, List<Integer> retryableStatuses, List<String> retryableMethods,
		boolean idempotencyKeyEnabled, String idempotencyKeyHeader, long maxReplayBodyBytes,
		List<String> hintFields, boolean retryRefusedRequests, List<Integer> refusalStatuses,
		String attemptHeader, boolean clientTimeouts) {

	static SettingsDescriptor of(ProviderSettings settings) {
		RetryPolicy policy = settings.policy();
		return new SettingsDescriptor(settings.hosts(), policy.maxAttempts(), text(policy.deadline()),
				text(policy.attemptTimeout()), text(policy.totalWait()),
				policy.planner().maxWait().map(Duration::toString).orElse(null), policy.hintMode().name(),
				(policy.hintMode() == HintMode.CAPPED) ? text(policy.hintCap()) : null,
				policy.planner().jitter().name(), text(policy.backoff().base()), text(policy.backoff().max()),
				List.copyOf(new TreeSet<>(policy.retryableStatuses())),
				List.copyOf(new TreeSet<>(policy.retryableMethods())), settings.idempotencyKeyEnabled(),
				policy.idempotencyKeyHeader(), settings.maxReplayBodyBytes(),
				policy.planner().fields().read().stream().sorted().map(SettingsDescriptor::propertyValue).toList(),
				policy.conventions().retryRefusedRequests(),
				List.copyOf(new TreeSet<>(policy.conventions().refusalStatuses())),
				policy.conventions().attemptHeader().orElse(null), settings.clientTimeouts());
	}

	/** A field group as {@code hint-fields} takes it: {@code RETRY_AFTER_MS} is {@code retry-after-ms}. */
	private static String propertyValue(HintField field) {
		return field.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
	}

	private static String text(Duration duration) {
		return (duration != null) ? duration.toString() : null;
	}

}

package io.github.retryafter.boot.autoconfigure;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import io.github.retryafter.NearestName;

/**
 * Fails at startup on a group listed under {@code retry.after.providers.<name>.service-groups} that the application
 * does not declare, naming the entry, its provider and the declared group nearest it by edit distance: such an entry
 * maps nothing, and the group it meant would go by host (to {@code default}, usually) without a word. With no group
 * declared at all the message says so. Every undeclared entry is named in the one failure. Stateless.
 */
final class UnknownServiceGroups {

	private UnknownServiceGroups() {
	}

	/**
	 * Checks each listed group against the groups the application declares.
	 * @param listed the provider of each listed group, by group name ({@code listedGroups})
	 * @param declared the names of the application's HTTP service groups, empty when it has none
	 * @throws InvalidConfigurationPropertyValueException naming the first listed group that is not declared (and
	 * every other one)
	 */
	static void check(Map<String, String> listed, Collection<String> declared) {
		List<Map.Entry<String, String>> unknown = new ArrayList<>();
		listed.entrySet().stream().filter((entry) -> !declared.contains(entry.getKey())).forEach(unknown::add);
		if (unknown.isEmpty()) {
			return;
		}
		List<String> groups = List.copyOf(new TreeSet<>(declared));
		Map.Entry<String, String> first = unknown.get(0);
		StringBuilder reason = new StringBuilder();
		if (groups.isEmpty()) {
			reason.append("the application declares no HTTP service groups (@ImportHttpServices), so there is no ")
				.append("group '")
				.append(first.getKey())
				.append("' to use this provider; remove the entry, or declare the group");
		}
		else {
			reason.append("the application declares no HTTP service group '")
				.append(first.getKey())
				.append("'; did you mean '")
				.append(NearestName.of(first.getKey(), groups).orElseThrow())
				.append("'? Its groups: ")
				.append(groups)
				.append(". A group is named by the group attribute of @ImportHttpServices: fix the name, or remove "
						+ "the entry");
		}
		reason.append('.');
		unknown.stream().skip(1).forEach((entry) -> reason.append(" Nor '").append(entry.getKey())
			.append("' under ").append(property(entry.getValue()))
			.append(NearestName.of(entry.getKey(), groups).map((group) -> " (did you mean '" + group + "'?)")
				.orElse(""))
			.append('.'));
		throw new InvalidConfigurationPropertyValueException(property(first.getValue()), first.getKey(),
				reason.toString());
	}

	/** The property that lists a provider's groups. */
	static String property(String provider) {
		return "retry.after.providers." + provider + ".service-groups";
	}

}

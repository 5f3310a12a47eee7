package io.github.retryafter.sample;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Applies {@link RequiresBinary}: runs the class when the program is on the {@code PATH}, skips it when it is missing
 * on a developer's machine, and fails it when it is missing while {@code CI=true}.
 */
final class RequiresBinaryExtension implements ExecutionCondition, BeforeAllCallback {

	/** What to do with a class that needs a program. */
	enum Decision {

		/** The program is there. */
		RUN,

		/** The program is missing on a developer's machine. */
		SKIP,

		/** The program is missing on CI, which should have installed it. */
		FAIL

	}

	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		Optional<RequiresBinary> program = program(context);
		if (program.isEmpty()) {
			return ConditionEvaluationResult.enabled("no @RequiresBinary");
		}
		String name = program.get().value();
		return switch (decide(find(name, System.getenv()), System.getenv())) {
			case RUN -> ConditionEvaluationResult.enabled(name + " is installed");
			case FAIL -> ConditionEvaluationResult.enabled(name + " is missing on CI; the class will fail");
			case SKIP -> ConditionEvaluationResult.disabled(message(program.get()) + "; skipped (with CI=true it fails)");
		};
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		program(context).ifPresent((program) -> {
			if (decide(find(program.value(), System.getenv()), System.getenv()) == Decision.FAIL) {
				throw new AssertionError(message(program) + " but CI=true: CI must install it (.ci/run does)");
			}
		});
	}

	/**
	 * Returns the path of a program on the {@code PATH}.
	 * @param name the program
	 * @return its path
	 * @throws AssertionError if it is missing
	 */
	static Path require(String name) {
		return find(name, System.getenv()).orElseThrow(() -> new AssertionError(message(name, name)));
	}

	static Decision decide(Optional<Path> program, Map<String, String> environment) {
		if (program.isPresent()) {
			return Decision.RUN;
		}
		return "true".equalsIgnoreCase(environment.getOrDefault("CI", "").trim()) ? Decision.FAIL : Decision.SKIP;
	}

	static Optional<Path> find(String name, Map<String, String> environment) {
		String path = environment.getOrDefault("PATH", "");
		for (String directory : path.split(File.pathSeparator)) {
			if (directory.isEmpty()) {
				continue;
			}
			Path candidate = Path.of(directory, name);
			if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
				return Optional.of(candidate);
			}
		}
		return Optional.empty();
	}

	private static String message(RequiresBinary program) {
		return message(program.value(), debianPackage(program));
	}

	static String message(String name, String debianPackage) {
		return "'" + name + "' is not installed (not found on PATH; install Debian's '" + debianPackage + "' package)";
	}

	static String debianPackage(RequiresBinary program) {
		return program.debianPackage().isEmpty() ? program.value() : program.debianPackage();
	}

	private static Optional<RequiresBinary> program(ExtensionContext context) {
		return context.getTestClass()
			.flatMap((type) -> AnnotationSupport.findAnnotation(type, RequiresBinary.class));
	}

}

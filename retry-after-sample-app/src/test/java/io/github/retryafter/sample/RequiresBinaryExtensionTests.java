package io.github.retryafter.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.github.retryafter.sample.RequiresBinaryExtension.Decision;

import static org.assertj.core.api.Assertions.assertThat;

class RequiresBinaryExtensionTests {

	@Test
	void runsWhenTheProgramIsInstalled() {
		assertThat(RequiresBinaryExtension.decide(Optional.of(Path.of("/usr/bin/prometheus")), Map.of("CI", "true")))
			.isEqualTo(Decision.RUN);
	}

	@Test
	void skipsAMissingProgramOnADevelopersMachine() {
		assertThat(RequiresBinaryExtension.decide(Optional.empty(), Map.of())).isEqualTo(Decision.SKIP);
		assertThat(RequiresBinaryExtension.decide(Optional.empty(), Map.of("CI", "false"))).isEqualTo(Decision.SKIP);
	}

	@Test
	void failsAMissingProgramOnCi() {
		assertThat(RequiresBinaryExtension.decide(Optional.empty(), Map.of("CI", "true"))).isEqualTo(Decision.FAIL);
		assertThat(RequiresBinaryExtension.decide(Optional.empty(), Map.of("CI", "TRUE"))).isEqualTo(Decision.FAIL);
	}

	@Test
	void namesTheDebianPackageThatInstallsTheProgram() {
		assertThat(RequiresBinaryExtension.debianPackage(Promtool.class.getAnnotation(RequiresBinary.class)))
			.isEqualTo("prometheus");
		assertThat(RequiresBinaryExtension.debianPackage(Prometheus.class.getAnnotation(RequiresBinary.class)))
			.isEqualTo("prometheus");
		assertThat(RequiresBinaryExtension.message("promtool", "prometheus"))
			.isEqualTo("'promtool' is not installed (not found on PATH; install Debian's 'prometheus' package)");
	}

	@Test
	void findsOnlyExecutableFilesOnThePath(@TempDir Path first, @TempDir Path second) throws IOException {
		Path plain = Files.createFile(first.resolve("tool"));
		Path executable = Files.createFile(second.resolve("tool"),
				PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
		Map<String, String> environment = Map.of("PATH", first + ":" + second);
		assertThat(plain).exists();
		assertThat(RequiresBinaryExtension.find("tool", environment)).contains(executable);
		assertThat(RequiresBinaryExtension.find("other", environment)).isEmpty();
	}

	@RequiresBinary(value = "promtool", debianPackage = "prometheus")
	private static final class Promtool {

	}

	@RequiresBinary("prometheus")
	private static final class Prometheus {

	}

}

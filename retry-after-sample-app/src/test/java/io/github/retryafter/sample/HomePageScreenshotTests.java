package io.github.retryafter.sample;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Renders the home page in Debian's headless Chromium and checks, in the screenshot's pixels, that the chart's bars
 * were drawn in both colours. The screenshot is kept at {@code target/home-page.png} for a person to look at.
 */
@RequiresBinary("chromium")
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class HomePageScreenshotTests {

	private static final int WIDTH = 1000;

	private static final int HEIGHT = 1000;

	@LocalServerPort
	private int port;

	@Autowired
	private ScenarioRunner runner;

	@Test
	void chromiumDrawsTheChartOfTheLastScenario(@TempDir Path temp) throws Exception {
		this.runner.run(Scenario.named("herd").orElseThrow().withOperations(60));
		Path screenshot = temp.resolve("home-page.png");
		Process chromium = new ProcessBuilder(List.of(RequiresBinaryExtension.require("chromium").toString(),
				"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
				"--disable-background-networking", "--disable-component-update", "--disable-sync",
				"--hide-scrollbars", "--user-data-dir=" + temp.resolve("profile"), "--screenshot=" + screenshot,
				"--window-size=" + WIDTH + "," + HEIGHT, "http://localhost:" + this.port + "/"))
			.redirectErrorStream(true)
			.redirectOutput(temp.resolve("chromium.log").toFile())
			.start();
		try {
			assertThat(chromium.waitFor(60, TimeUnit.SECONDS)).as("chromium finished within 60 s").isTrue();
		}
		finally {
			stop(chromium);
		}
		assertThat(screenshot).as("chromium's output:%n%s", log(temp.resolve("chromium.log"))).exists();
		Files.copy(screenshot, Path.of("target", "home-page.png"), StandardCopyOption.REPLACE_EXISTING);
		BufferedImage image = ImageIO.read(screenshot.toFile());
		assertThat(image.getWidth()).isEqualTo(WIDTH);
		int first = count(image, ArrivalChart.FIRST_COLOUR);
		int retries = count(image, ArrivalChart.RETRY_COLOUR);
		int nonWhite = countNonWhite(image);
		assertThat(first).as("pixels of first-attempt bars").isGreaterThan(200);
		assertThat(retries).as("pixels of retry bars").isGreaterThan(200);
		assertThat(nonWhite).as("the page is not blank").isGreaterThan(first + retries);
	}

	private static int count(BufferedImage image, String colour) {
		int rgb = Integer.parseInt(colour.substring(1), 16);
		int count = 0;
		for (int y = 0; y < image.getHeight(); y++) {
			for (int x = 0; x < image.getWidth(); x++) {
				if ((image.getRGB(x, y) & 0xFFFFFF) == rgb) {
					count++;
				}
			}
		}
		return count;
	}

	private static int countNonWhite(BufferedImage image) {
		int count = 0;
		for (int y = 0; y < image.getHeight(); y++) {
			for (int x = 0; x < image.getWidth(); x++) {
				if ((image.getRGB(x, y) & 0xFFFFFF) != 0xFFFFFF) {
					count++;
				}
			}
		}
		return count;
	}

	private static void stop(Process process) throws InterruptedException {
		if (process.isAlive()) {
			process.destroy();
			if (!process.waitFor(10, TimeUnit.SECONDS)) {
				process.destroyForcibly();
			}
		}
	}

	private static String log(Path file) throws IOException {
		return Files.exists(file) ? Files.readString(file) : "(none)";
	}

}

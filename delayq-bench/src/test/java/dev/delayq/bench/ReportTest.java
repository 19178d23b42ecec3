package dev.delayq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.cli.Json;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How repetitions are summarised and printed. */
class ReportTest {
    private static final BenchConfig CONFIG = new BenchConfig(4, 32, 100, Duration.ZERO, 1.0, Duration.ofSeconds(10), false, 1, Duration.ofHours(1), false);
    private static final Report.Environment ENV = new Report.Environment("2026-11-30T12:00Z", "17.0.15", "7.0.15",
            "private", "AMD EPYC", 2);

    private static Map<Metric, Double> w1(double enqueue, double drain, double duplicates, double missing) {
        Map<Metric, Double> m = new EnumMap<>(Metric.class);
        m.put(Metric.ENQUEUE_JOBS_PER_S, enqueue);
        m.put(Metric.DRAIN_JOBS_PER_S, drain);
        m.put(Metric.LAG_P50_MS, 1.5);
        m.put(Metric.LAG_P99_MS, 2.25);
        m.put(Metric.LAG_MAX_MS, 3.0);
        m.put(Metric.DUPLICATES, duplicates);
        m.put(Metric.MISSING, missing);
        return m;
    }

    @Test
    void ratesAreMediansOfTheRepsThatMeasuredThemAndCorrectnessCountsAreTotals() throws Exception {
        Workload burst = new BurstWorkload();
        Report report = new Report(ENV, CONFIG, 4);
        report.add(burst, w1(30_000, 10_000, 0, 0));
        report.add(burst, w1(10_000, Double.NaN, 0, 2));
        report.add(burst, w1(20_000, 14_000, 1, 0));
        report.add(burst, w1(40_000, 12_000, 0, 0));

        assertThat(report.summary(burst, Metric.ENQUEUE_JOBS_PER_S)).isEqualTo(new Report.Summary(25_000, 10_000, 40_000));
        assertThat(report.summary(burst, Metric.DRAIN_JOBS_PER_S)).isEqualTo(new Report.Summary(12_000, 10_000, 14_000));
        assertThat(report.summary(burst, Metric.MISSING).value()).isEqualTo(2);
        assertThat(report.failures()).containsExactly("w1: 1 job(s) started more than once, 2 never started");

        StringWriter text = new StringWriter();
        report.printTable(new PrintWriter(text, true));
        assertThat(text.toString()).startsWith("delayq bench — 2026-11-30T12:00Z, Java 17.0.15, Redis 7.0.15 (private server), AMD EPYC x2, reps 4")
                .containsPattern("w1 +enqueue jobs/s +25,000   10,000 – 40,000")
                .containsPattern("w1 +missing +2   total of 4 rep\\(s\\)");

        StringWriter json = new StringWriter();
        report.printJson(new PrintWriter(json, true));
        JsonNode node = Json.MAPPER.readTree(json.toString());
        assertThat(node.get("enqueue_jobs_per_s").asLong()).isEqualTo(25_000);
        assertThat(node.get("enqueue_jobs_per_s_min").asLong()).isEqualTo(10_000);
        assertThat(node.get("lag_p99_ms").asDouble()).isEqualTo(2.25);
        assertThat(node.get("duplicates").asLong()).isEqualTo(1);
        assertThat(node.has("duplicates_min")).isFalse();
        assertThat(node.get("reps").asInt()).isEqualTo(4);
        // Each repetition's value, in the order they ran; null for the one that did not measure the drain.
        assertThat(node.get("enqueue_jobs_per_s_reps").toString()).isEqualTo("[30000,10000,20000,40000]");
        assertThat(node.get("drain_jobs_per_s_reps").toString()).isEqualTo("[10000,null,14000,12000]");
        assertThat(node.has("duplicates_reps")).isFalse();
    }

    @Test
    void warmUpRepetitionsAreLeftOutOfTheFiguresButTheirDuplicatesAndLostJobsFailTheRun() throws Exception {
        Workload burst = new BurstWorkload();
        Report report = new Report(ENV, CONFIG, 1);
        report.warmedUp(burst, w1(90_000, 90_000, 1, 2));
        report.add(burst, w1(30_000, 10_000, 0, 0));

        assertThat(report.summary(burst, Metric.DRAIN_JOBS_PER_S)).isEqualTo(new Report.Summary(10_000, 10_000, 10_000));
        assertThat(report.summary(burst, Metric.DUPLICATES).value()).isZero();
        assertThat(report.failures()).containsExactly("w1 warm-up: 1 job(s) started more than once, 2 never started");
        StringWriter json = new StringWriter();
        report.printJson(new PrintWriter(json, true));
        JsonNode node = Json.MAPPER.readTree(json.toString());
        assertThat(node.get("reps").asInt()).isEqualTo(1);
        assertThat(node.get("warmup_reps").asInt()).isEqualTo(1);
        assertThat(node.get("drain_jobs_per_s_reps").toString()).isEqualTo("[10000]");
        StringWriter text = new StringWriter();
        report.printTable(new PrintWriter(text, true));
        assertThat(text.toString()).contains("\nunmeasured warm-up repetitions first: w1 1\n");
    }

    @Test
    void aMetricNoRepMeasuredIsNullInJsonAndNaInTheTable() throws Exception {
        Workload burst = new BurstWorkload();
        Report report = new Report(ENV, CONFIG, 1);
        report.add(burst, w1(30_000, Double.NaN, 0, 5));

        StringWriter json = new StringWriter();
        report.printJson(new PrintWriter(json, true));
        assertThat(Json.MAPPER.readTree(json.toString()).get("drain_jobs_per_s").isNull()).isTrue();
        StringWriter text = new StringWriter();
        report.printTable(new PrintWriter(text, true));
        assertThat(text.toString()).containsPattern("w1 +drain jobs/s +n/a   n/a – n/a");
    }

    @Test
    void theScaleRatioIsTheMedianOfPerRepRatiosAndSaysSo() {
        Workload scale = new ScaleWorkload();
        Report report = new Report(ENV, CONFIG, 3);
        double[][] reps = {{30_000, 20_000}, {40_000, 40_000}, {20_000, 25_000}}; // beside 1M, beside 10k
        for (double[] rep : reps) {
            Map<Metric, Double> m = new EnumMap<>(Metric.class);
            m.put(Metric.DRAIN_JOBS_PER_S, rep[0]);
            m.put(Metric.DRAIN_JOBS_PER_S_10K, rep[1]);
            m.put(Metric.SCALE_RATIO, rep[0] / rep[1]);
            report.add(scale, m);
        }
        // Ratios 1.5, 1.0, 0.8: median 1.0; the medians of the rates (30,000 / 25,000) would give 1.2.
        assertThat(report.summary(scale, Metric.SCALE_RATIO).value()).isEqualTo(1.0);
        StringWriter text = new StringWriter();
        report.printTable(new PrintWriter(text, true));
        assertThat(text.toString()).containsPattern("w5 +per-rep ratio 1M / 10k +1.000   0.800 – 1.500")
                .contains("the median of those ratios (not the ratio of the two medians above)");
    }

    @Test
    void jobCountsAreNamedAsTheWorkloadsNameThem() {
        assertThat(Report.count(1_000_000)).isEqualTo("1M");
        assertThat(Report.count(10_000)).isEqualTo("10k");
        assertThat(Report.count(20_000)).isEqualTo("20k");
        assertThat(Report.count(250)).isEqualTo("250");
        assertThat(Report.count(12_345)).isEqualTo("12345");
    }
}

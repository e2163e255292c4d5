using PerfLab.Apps;
using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running;
using PerfLab.Results;
using PerfLab.SutProcesses;
using PerfLab.Experiments.Running.Measuring;

namespace PerfLab.Tests.Experiments.Running;

/// <summary>
/// Uploads as the load engine runs them (the upload model's runner) in the one load measurement, against a real SUT
/// speaking HTTP/2, through the real latency proxy the measurement puts in front of it.
/// </summary>
public sealed class UploadRunTests
{
    private static readonly TimeSpan Rtt = TimeSpan.FromMilliseconds(20);

    // The loader's upload experiment with uploads of 256 KB through 20 ms (the article profile: 3 of them).
    private static readonly string Experiment = UploadExperimentLoaderTests.Upload
        .Replace("size: 108MB", "size: 256KB", StringComparison.Ordinal).Replace("rtt: 10ms", "rtt: 20ms", StringComparison.Ordinal);

    private static Task<IRunningApp> StartHttp2SutAsync() => StartAsync(new SutLaunch(
        new Dictionary<string, string> { ["Kestrel:EndpointDefaults:Protocols"] = "Http2" }, new Dictionary<string, string>(), null));

    // The built-in SUT as the runner starts it: an app under test.
    private static Task<IRunningApp> StartAsync(SutLaunch launch) => new BuiltInSut(file => launch with { LogFile = file })
        .StartAsync(Path.Combine(Path.GetTempPath(), "perflab-tests", $"sut-{Guid.NewGuid():N}.log"), null, CancellationToken.None);

    private static Task<RunRecord> MeasureAsync(IRunningApp sut, ProfileName profile)
    {
        var experiment = ExperimentLoader.Parse(Experiment, "experiments/up.yaml");
        var measurement = new LoadMeasurement(experiment, experiment.Variants[0], experiment.Profiles[profile], connectionString: null);
        return measurement.MeasureAsync(sut, new RunIdentity("a", 1, 1, DateTimeOffset.UtcNow), new Dictionary<string, string>(),
            CancellationToken.None);
    }

    [Fact]
    public async Task MeasureAsync_SmallUploads_RecordsOneTimePerUploadAndTheRttItMeasured()
    {
        await using var sut = await StartHttp2SutAsync();

        var record = await MeasureAsync(sut, ProfileName.Article);

        Assert.True(record.Status == RunStatus.Ok, record.FailureReason);
        Assert.Equal(3, record.BatchTimesMs.Count); // the warming upload is not measured
        // Each upload needs at least one round trip through the proxy (the request and the answer).
        Assert.All(record.BatchTimesMs, ms => Assert.InRange(ms, Rtt.TotalMilliseconds, 10_000));
        Assert.Equal(20, record.ConfiguredRttMs);
        Assert.InRange(record.MeasuredRttMs!.Value, 18, 50);
        var stats = Assert.Single(record.Scenarios);
        Assert.Equal(("upload", 3L, 0L), (stats.Scenario, stats.Requests, stats.Errors));
        // The engine's histogram keeps three significant digits of each upload's time.
        Assert.InRange(stats.MeanMs, record.BatchTimesMs.Average() * 0.99, record.BatchTimesMs.Average() * 1.01);
        Assert.True(stats.Rps > 0);
    }

    [Fact]
    public async Task MeasureAsync_SutNotSpeakingHttp2_FailsNamingTheUploadsDone()
    {
        await using var sut = await StartAsync(SutLaunch.Default(connectionString: null));

        var record = await MeasureAsync(sut, ProfileName.Smoke);

        Assert.Equal((RunStatus.Failed, FailureKind.LoadStoppedEarly), (record.Status, record.FailureKind));
        Assert.Contains("upload: ", record.FailureReason);
        Assert.EndsWith("after 0 of 1 uploads", record.FailureReason);
    }
}

using System.Text.Json;
using System.Text.RegularExpressions;
using PerfLab.Common;
using PerfLab.Tests.Apps;

namespace PerfLab.Tests.Hosts;

/// <summary>
/// An app of one's own over --hosts: samples/TinyShop published here, its build copied to an app namespace once (by
/// content), each variant's process started there by the app role, checked, measured, its counters and trace read there
/// and sent back. In the TinyShop collection, whose one build of the sample it shares (it asserts no latency).
/// </summary>
[Collection(CpuHeavy.A)]
public sealed partial class OwnAppHostsTests(TinyShopBuild tinyShop)
{
    [Fact]
    public async Task Compare_OwnAppWithHosts_RunsOnTheAppHostCopiedOnceAndItsCountersAndTracesComeBack()
    {
        using var lab = NetnsLab.Create(["app"]);
        var (ns, appAddress) = lab.Hosts["app"];
        // Published here first (once for the collection), where the CLI looks: the run's time goes to placing and measuring.
        await tinyShop.DllAsync();
        var hosts = HostsCheckTests.Write(lab, "ssh-config: ./ssh_config\napp: app\nload: [local]\n");
        var output = Path.Combine(lab.Folder, "out");
        using var watching = new CancellationTokenSource();
        var seen = WatchAppsAsync(lab, watching.Token);

        var result = await HostsCheckTests.RunInController(lab, tinyShop.Environment,
            "compare", TinyShopBuild.Project, "--url", "/report", "--users", "2", "--ready", "/healthz",
            "--variant", "computed", "--variant", "cached: --Report:Cache=true TINYSHOP_GREETING=placed",
            "--profile", "smoke", "--trace", "--hosts", hosts, "--out", output);
        await watching.CancelAsync();
        var processes = await seen;

        Assert.True(result.ExitCode == 0, result.ToString());
        // Both variants' processes ran in the app namespace, from the copied build, on the namespace's address.
        var builds = Path.Combine(lab.Folder, $"cache-{ns}", "builds");
        Assert.Contains(processes, p => p.Contains($"{builds}/", StringComparison.Ordinal) && p.Contains($"--urls http://{appAddress}:",
            StringComparison.Ordinal) && !p.Contains("--Report:Cache=true", StringComparison.Ordinal));
        Assert.Contains(processes, p => p.Contains($"{builds}/", StringComparison.Ordinal) && p.Contains("--Report:Cache=true",
            StringComparison.Ordinal));
        // One copy for the two variants: the second found the same content there (the one TinyShop build in the host's builds).
        Assert.Single(CopiedLine().Matches(result.Stdout));
        Assert.Single(AlreadyThereLine().Matches(result.Stdout));
        Assert.Single(Directory.GetDirectories(builds), d => File.Exists(Path.Combine(d, "TinyShop.dll")));

        using var json = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(output, "results.json")));
        var app = json.RootElement.GetProperty("provenance").GetProperty("hosts").EnumerateArray()
            .Single(h => h.GetProperty("role").GetString() == "app");
        Assert.Equal(("app", appAddress), (app.GetProperty("host").GetString(), app.GetProperty("address").GetString()));
        var experiment = json.RootElement.GetProperty("experiments")[0];
        var runs = experiment.GetProperty("runs").EnumerateArray().ToList();
        Assert.Equal(["cached", "computed"], runs.Select(r => r.GetProperty("variant").GetString()).Order());
        foreach (var run in runs)
        {
            Assert.Equal("ok", run.GetProperty("status").GetString());
            var report = run.GetProperty("scenarios")[0];
            Assert.True(report.GetProperty("requests").GetInt64() > 0, report.ToString());
            Assert.Equal(0, report.GetProperty("errors").GetInt64());
            // Read over EventPipe in the app namespace and sent back: a small app's working set, in MB; its CPU clock there.
            Assert.InRange(run.GetProperty("counters").GetProperty("working-set").GetDouble(), 10, 4000);
            Assert.True(run.GetProperty("cost").GetProperty("appCpuSeconds").GetDouble() > 0, run.GetProperty("cost").ToString());
        }
        // The variant checked by the role on the app host as locally: the environment read from the process over its IPC.
        var cached = experiment.GetProperty("variantEffects").EnumerateArray()
            .Single(v => v.GetProperty("variant").GetString() == "cached");
        Assert.Contains("TINYSHOP_GREETING=placed (process environment)", cached.GetProperty("confirmed").EnumerateArray()
            .Select(c => c.GetString()));
        // Each variant traced in the app namespace, the file sent back and analysed here.
        var evidence = experiment.GetProperty("evidence").EnumerateArray().ToList();
        Assert.True(evidence.Count == 2, result.ToString());
        Assert.All(evidence, e => Assert.True(e.GetProperty("cpuSamples").GetInt64() > 0, e.ToString()));
        await HostsRunTests.AssertNothingLeftAsync(lab, "app");
    }

    [Fact]
    public async Task Compare_CommandAppWithHosts_UsageErrorSayingGiveAProjectOrDll()
    {
        var folder = TestCaches.NewFolder();
        var hosts = Path.Combine(folder, "hosts.yaml");
        await File.WriteAllTextAsync(hosts, "app: app-host\nload: [local]\n");

        var result = await PerfLabProcess.RunAsync("compare", "--command", "dotnet App.dll --urls http://127.0.0.1:{port}",
            "--url", "/", "--variant", "a", "--variant", "b: X=1", "--hosts", hosts, "--out", Path.Combine(folder, "out"));

        Assert.True(result.ExitCode == (int)ExitCode.Usage, result.ToString());
        Assert.Contains("starts its app with a command line (--command, or app: command:), which cannot be copied to the app host",
            result.Stderr, StringComparison.Ordinal);
        Assert.Contains("give the app's project folder, .csproj or built .dll instead", result.Stderr, StringComparison.Ordinal);
        Assert.False(Directory.Exists(Path.Combine(folder, "out")));
    }

    /// <summary>
    /// One app namespace for two runs. First a capacity search of TinyShop on it, each step sent from a generator
    /// namespace to the app host's address, the app's counters read on the app host and sent back. Then the app host's
    /// link cut inside its namespace mid-run (no FIN, no RST): its role hears no heartbeat and ends itself and the app
    /// within 15 s, and the controller, hearing none back, ends the session and reports the run failed, naming the host
    /// and what was lost there.
    /// </summary>
    [Fact]
    public async Task Run_AppOnAHost_CapacityFromAGeneratorCountersFromThere_ThenItsLinkCutMidRunLeavesNothingAndIsNamed()
    {
        using var lab = NetnsLab.Create(["app", "gen-1"]);
        await tinyShop.DllAsync();
        var experiments = Directory.CreateDirectory(Path.Combine(lab.Folder, "experiments")).FullName;
        const string App = "app: { project: \"PROJECT\", ready: /healthz }\nbaseline: computed\nvariants:\n  - name: computed\n"
            + "  - name: cached\n    config: { \"Report:Cache\": \"true\" }\n";
        // One step a variant (from = max): the search's first step warms until steady, the rest is the window.
        await File.WriteAllTextAsync(Path.Combine(experiments, "reach.yaml"), "name: reach\ntitle: Capacity on the app host\n"
            + App.Replace("PROJECT", TinyShopBuild.Project, StringComparison.Ordinal)
            + "capacity: { slo: \"p99<2s\", errors: \"<50%\", from: 10, max: 10 }\n"
            + "load:\n  scenarios:\n    - { name: report, url: /report }\nprofiles:\n  smoke: { warmup: 500ms, duration: 2s, repeat: 1 }\n");
        await File.WriteAllTextAsync(Path.Combine(experiments, "cut.yaml"), "name: cut\ntitle: The app host's link cut mid-run\n"
            + App.Replace("PROJECT", TinyShopBuild.Project, StringComparison.Ordinal)
            + "load:\n  scenarios:\n    - { name: report, url: /report, model: closed, users: 2 }\n"
            + "profiles:\n  smoke: { warmup: 1s, duration: 15s, repeat: 1 }\n");
        var generated = HostsCheckTests.Write(lab, "ssh-config: ./ssh_config\napp: app\nload: [gen-1]\n");

        var reach = await HostsCheckTests.RunInController(lab, tinyShop.Environment, "run", "reach", "--experiments-dir", experiments,
            "--profile", "smoke", "--no-trace", "--hosts", generated, "--out", Path.Combine(lab.Folder, "reach"));

        Assert.True(reach.ExitCode == 0, reach.ToString());
        using (var json = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(lab.Folder, "reach", "results.json"))))
        {
            Assert.Contains(json.RootElement.GetProperty("provenance").GetProperty("hosts").EnumerateArray(),
                h => h.GetProperty("role").GetString() == "load" && h.GetProperty("host").GetString() == "gen-1");
            foreach (var searched in json.RootElement.GetProperty("experiments")[0].GetProperty("runs").EnumerateArray())
            {
                Assert.Equal("ok", searched.GetProperty("status").GetString());
                Assert.True(searched.GetProperty("capacity").GetProperty("steps").GetArrayLength() > 0, searched.ToString());
                Assert.True(searched.GetProperty("scenarios")[0].GetProperty("requests").GetInt64() > 0, searched.ToString());
                // Read over EventPipe in the app namespace and sent back (a remote app's pid is no process here).
                Assert.InRange(searched.GetProperty("counters").GetProperty("working-set").GetDouble(), 10, 4000);
            }
        }

        var hosts = HostsCheckTests.Write(lab, "ssh-config: ./ssh_config\napp: app\nload: [local]\n");
        var output = Path.Combine(lab.Folder, "out");
        var run = HostsCheckTests.RunInController(lab, tinyShop.Environment, "run", "cut", "--experiments-dir", experiments,
            "--profile", "smoke", "--no-trace", "--hosts", hosts, "--out", output);
        // The load's connections from the controller reach the app (not its process alone: a busy machine once took
        // more than 3 s from TinyShop's start to ready, and a cut before ready is not the loss mid-run this test is for).
        var started = DateTime.UtcNow;
        while (!LoadConnected(lab) && !run.IsCompleted && DateTime.UtcNow - started < TimeSpan.FromMinutes(2))
        {
            await Task.Delay(100);
        }
        await Task.Delay(TimeSpan.FromSeconds(2));   // past the 1 s of warm-up, into the 15 s measured window
        Assert.False(run.IsCompleted, run.IsCompleted ? (await run).ToString() : "");

        lab.CutLink("app");
        var cut = System.Diagnostics.Stopwatch.StartNew();
        while (lab.ProcessesBesidesSshd("app").Count > 0 && cut.Elapsed < TimeSpan.FromSeconds(15))
        {
            await Task.Delay(100);
        }
        var left = lab.ProcessesBesidesSshd("app");
        var result = await run;

        Assert.Empty(left);
        Assert.True(result.ExitCode != 0, result.ToString());
        var report = await File.ReadAllTextAsync(Path.Combine(output, "report.md"));
        // The report whole when it names the loss otherwise: the assertion then says how.
        Assert.True(report.Contains("app host 'app': lost mid-run: the app role ", StringComparison.Ordinal), report);
        Assert.Contains("the app there is lost, and its role ends it", report, StringComparison.Ordinal);
    }

    /// <summary>An established connection in the app namespace from the controller's address, not to sshd: the load's.</summary>
    private static bool LoadConnected(NetnsLab lab) =>
        NetnsLab.Run("ip", "netns", "exec", lab.Hosts["app"].Namespace, "ss", "-tnH", "state", "established",
            "dst", lab.ControllerAddress, "( sport != :22 )").Trim().Length > 0;

    /// <summary>Every TinyShop process seen in the app namespace until cancelled, as "pid command line" (polled /proc).</summary>
    private static async Task<List<string>> WatchAppsAsync(NetnsLab lab, CancellationToken ct)
    {
        var seen = new List<string>();
        while (!ct.IsCancellationRequested)
        {
            seen.AddRange(lab.ProcessesBesidesSshd("app")
                .Where(p => p.Contains("TinyShop.dll", StringComparison.Ordinal) && !seen.Contains(p)));
            try
            {
                await Task.Delay(100, ct);
            }
            catch (OperationCanceledException)
            {
            }
        }
        return seen;
    }

    [GeneratedRegex(@"app host 'app': TinyShop\.dll's build [0-9a-f]{16} copied \([0-9.]+ MB\)")]
    private static partial Regex CopiedLine();

    [GeneratedRegex(@"app host 'app': TinyShop\.dll's build [0-9a-f]{16} already there")]
    private static partial Regex AlreadyThereLine();
}

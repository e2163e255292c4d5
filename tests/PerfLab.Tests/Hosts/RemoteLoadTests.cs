using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using PerfLab.Common;

namespace PerfLab.Tests.Hosts;

/// <summary>
/// perflab load --hosts with generators in network namespaces against the built-in SUT's 150 ms delay endpoint in an
/// app namespace, the controller in a namespace of its own.
/// Beside the other parallel tests, as the other hosts tests run: how close two runs' latencies come is a timing
/// (bench/hosts, docs/benchmarks/hosts.md); here the counts, the shares and the merge are checked.
/// </summary>
[Collection(CpuHeavy.B)]
public sealed class RemoteLoadTests
{
    private const int Port = 5000;

    [Fact]
    public async Task Load_TwoGeneratorsAtHalfRate_MatchOneGeneratorAtFullRate()
    {
        using var lab = NetnsLab.Create(["app", "gen-1", "gen-2"]);
        using var sut = StartSut(lab);
        var url = Url(lab);
        var one = HostsCheckTests.Write(lab, "ssh-config: ./ssh_config\napp: app\nload: [gen-1]\n");
        var two = Path.Combine(lab.Folder, "two.yaml");
        File.WriteAllText(two, "ssh-config: ./ssh_config\napp: app\nload: [gen-1, gen-2]\n");
        string[] load = ["load", url, "-R", "100", "-c", "64", "-w", "2s", "-d", "6s", "--json"];

        var single = await HostsCheckTests.RunInController(lab, [.. load, "--hosts", one]);
        var split = await HostsCheckTests.RunInController(lab, [.. load, "--hosts", two]);

        Assert.True(single.ExitCode == 0, single.ToString());
        Assert.True(split.ExitCode == 0, split.ToString());
        var (a, b) = (Scenario(single), Scenario(split));
        var (la, lb) = (a.GetProperty("latency"), b.GetProperty("latency"));
        // The open schedule sets the throughput: two halves of 50 req/s make the one schedule of 100, and send what one
        // whole does. The sends are counted over each run's window, which a stalled host can cut short at its end (a
        // second of 6 is a sixth); each generator sending the whole rate would send twice as much, one alone half.
        var (openA, openB) = (a.GetProperty("open"), b.GetProperty("open"));
        Assert.Equal(100, openA.GetProperty("rate").GetDouble(), 6);
        Assert.Equal(100, openB.GetProperty("rate").GetDouble(), 6);
        Assert.InRange(openB.GetProperty("sent").GetDouble() / openA.GetProperty("sent").GetDouble(), 0.8, 1.25);
        // The 150 ms delay is a floor both runs sit on. How close their means and p99s come (the brief's 0.5 ms and
        // 2 ms) is a timing target, measured in bench/hosts on a quiet machine; on a shared 2-core machine a run's
        // latency moves with everything else, so here both only have to describe the same delay.
        Assert.All([la, lb], l => Assert.InRange(l.GetProperty("p50Ms").GetDouble(), 150, 1500));
        using var json = JsonDocument.Parse(split.Stdout);
        var generators = json.RootElement.GetProperty("generators").EnumerateArray().ToList();
        // The merged histogram (the generators' window histograms added bucket by bucket) holds one latency per
        // response the generators counted on their own: their requests less those that got no response (a timeout, a
        // refused or broken connection). A response of an error status has its latency (CI, busy: one of 600).
        var sent = generators.Sum(g => g.GetProperty("requests").GetInt64());
        var kinds = b.GetProperty("errors").GetProperty("byKind");
        var unanswered = new[] { "timeout", "connection-refused", "connection-error" }
            .Sum(k => kinds.TryGetProperty(k, out var n) ? n.GetInt64() : 0);
        Assert.True(sent - unanswered == lb.GetProperty("count").GetInt64(), $"{sent} sent, errors {b.GetProperty("errors")}, {lb}");
        Assert.Equal(["gen-1", "gen-2"], generators.Select(g => g.GetProperty("host").GetString()));
        // Each sent half: the two halves add up to the whole, and neither is the whole (a share, so that a stall both
        // generators' host shares does not move it; 0.35-0.65 leaves one of them a second's stall of its own).
        Assert.All(generators, g => Assert.InRange(g.GetProperty("requests").GetInt64() / (double)sent, 0.35, 0.65));
        Assert.Equal(b.GetProperty("requests").GetInt64(), generators.Sum(g => g.GetProperty("requests").GetInt64()));
        // Prepared as `run --hosts` prepares them (Placements): each host's facts, then whether perflab was copied.
        Assert.Matches(@"load host 'gen-1': [^\n]*, clock offset [^\n]*; perflab copied", single.Stderr);
        Assert.Matches(@"load host 'gen-1': [^\n]*; perflab already there", split.Stderr);
        Assert.All(lab.Hosts.Keys.Where(h => h != "app"), h => Assert.Empty(lab.ProcessesBesidesSshd(h)));
    }

    [Fact]
    public async Task Load_GeneratorKilledMidRun_FailsNamingItsHostAndLeavesNothing()
    {
        using var lab = NetnsLab.Create(["app", "gen-1", "gen-2"]);
        using var sut = StartSut(lab);
        var file = HostsCheckTests.Write(lab, "ssh-config: ./ssh_config\napp: app\nload: [gen-1, gen-2]\n");
        var run = HostsCheckTests.RunInController(lab, "load", Url(lab), "-R", "40", "-c", "16", "-d", "30s", "--hosts", file);

        var role = await WaitForRoleAsync(lab, "gen-2", run);
        await WaitUntilSendingAsync(lab, "gen-1", run);
        Assert.False(run.IsCompleted, run.IsCompleted ? (await run).ToString() : "");
        NetnsLab.Run("kill", "-9", role);
        var result = await run;

        Assert.True(result.ExitCode == (int)ExitCode.Failed, result.ToString());
        Assert.Contains("load host 'gen-2': the load generator ended mid-run", result.Stderr, StringComparison.Ordinal);
        Assert.Contains("killed, or its session dropped", result.Stderr, StringComparison.Ordinal);
        // What the other generator measured until then is kept: printed, marked incomplete, before the failure.
        Assert.Contains("INCOMPLETE: load host 'gen-2': the load generator ended mid-run", result.Stdout, StringComparison.Ordinal);
        Assert.Contains("(kept: what gen-1 measured until then)", result.Stdout, StringComparison.Ordinal);
        Assert.Matches(@"gen-1\s+[1-9]\d* req", result.Stdout);
        await AssertNothingLeftAsync(lab, "gen-1", "gen-2");
    }

    [Fact]
    public async Task Load_ControllerKilledMidRun_RolesExitWithTheirSessions()
    {
        using var lab = NetnsLab.Create(["app", "gen-1"]);
        using var sut = StartSut(lab);
        var file = HostsCheckTests.Write(lab, "ssh-config: ./ssh_config\napp: app\nload: [gen-1]\n");
        var info = PerfLabProcess.StartInfo(null, "load", Url(lab), "-R", "20", "-c", "8", "-d", "60s", "--hosts", file);
        info.FileName = "ip";
        foreach (var (arg, i) in new[] { "netns", "exec", lab.Controller, "dotnet" }.Select((a, i) => (a, i)))
        {
            info.ArgumentList.Insert(i, arg);
        }
        using var controller = Process.Start(info)!;
        _ = controller.StandardOutput.ReadToEndAsync();
        _ = controller.StandardError.ReadToEndAsync();

        await WaitForRoleAsync(lab, "gen-1", controller.WaitForExitAsync());
        // Ctrl+C or a crash alike: the controller and its ssh clients die, the sessions close, the role's input ends.
        controller.Kill(entireProcessTree: true);

        await AssertNothingLeftAsync(lab, "gen-1");
    }

    [Fact]
    public async Task Load_UnreachableOrWithoutRuntime_Exit4NamingTheHostAndStartsNothing()
    {
        using var lab = NetnsLab.Create(["app", "gen-1", "gen-2"], withoutDotnet: ["gen-2"]);
        var gen = lab.Hosts["gen-1"].Address;
        File.AppendAllText(lab.SshConfig, $"Host ghost\n  HostName {gen[..gen.LastIndexOf('.')]}.250\n  User root\n  IdentityFile {lab.UserKey}\n  ConnectTimeout 2\n\n");
        var file = HostsCheckTests.Write(lab, "ssh-config: ./ssh_config\napp: app\nload: [gen-1, gen-2, ghost]\n");

        var result = await HostsCheckTests.RunInController(lab, "load", Url(lab), "-R", "10", "-d", "2s", "--hosts", file);

        Assert.True(result.ExitCode == (int)ExitCode.Unreachable, result.ToString());
        Assert.Contains("load host 'gen-2': no .NET 10 runtime", result.Stderr, StringComparison.Ordinal);
        Assert.Contains("load host 'ghost': it does not answer on the network", result.Stderr, StringComparison.Ordinal);
        Assert.Contains("nothing was started", result.Stderr, StringComparison.Ordinal);
        Assert.DoesNotContain("perflab copied", result.Stderr, StringComparison.Ordinal);
        Assert.False(Directory.Exists(Path.Combine(lab.Folder, "cache-" + lab.Hosts["gen-1"].Namespace)));
    }

    [Fact]
    public async Task Load_TargetOtherThanTheAppHost_Refused()
    {
        var folder = Directory.CreateTempSubdirectory("perflab-hosts-").FullName;
        try
        {
            var file = Path.Combine(folder, "hosts.yaml");
            await File.WriteAllTextAsync(file, "app: 10.77.0.2\nload: [10.77.0.3]\n");

            var result = await PerfLabProcess.RunAsync("load", "http://10.77.0.9:5000/", "-d", "1s", "--hosts", file);

            Assert.True(result.ExitCode == (int)ExitCode.Usage, result.ToString());
            Assert.Contains("refusing to send load to 10.77.0.9: with --hosts the target must be the app host", result.Stderr, StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    internal static string Url(NetnsLab lab) => string.Create(CultureInfo.InvariantCulture, $"http://{lab.Hosts["app"].Address}:{Port}/weatherforecast-async?ms=150");

    private static JsonElement Scenario(CliResult result) =>
        JsonDocument.Parse(result.Stdout).RootElement.GetProperty("merged").GetProperty("scenarios")[0].Clone();

    /// <summary>The built-in SUT in the app namespace, listening on the app host's address; ready once it says so.</summary>
    internal static SutInNamespace StartSut(NetnsLab lab)
    {
        var (ns, address) = lab.Hosts["app"];
        var info = new ProcessStartInfo("ip") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var arg in new[] { "netns", "exec", ns, "dotnet", PerfLabPaths.SutAssembly, "--urls", $"http://{address}:{Port}" })
        {
            info.ArgumentList.Add(arg);
        }
        var process = Process.Start(info)!;
        var ready = new TaskCompletionSource();
        process.OutputDataReceived += (_, e) =>
        {
            if (e.Data?.Contains("listening on", StringComparison.Ordinal) == true)
            {
                ready.TrySetResult();
            }
        };
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        if (!ready.Task.Wait(TimeSpan.FromSeconds(30)))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException("the SUT in the app namespace did not say it was listening within 30 s");
        }
        return new SutInNamespace(process);
    }

    internal sealed class SutInNamespace(Process process) : IDisposable
    {
        public void Dispose()
        {
            process.Kill(entireProcessTree: true);
            process.WaitForExit(5000);
            process.Dispose();
        }
    }

    /// <summary>The pid of the load role on a host once it runs there (bounded: 150 s, or the controller ending first).</summary>
    internal static async Task<string> WaitForRoleAsync(NetnsLab lab, string host, Task controller)
    {
        var deadline = DateTime.UtcNow.AddSeconds(150);
        while (DateTime.UtcNow < deadline)
        {
            if (lab.ProcessesBesidesSshd(host).FirstOrDefault(p => p.Contains("host load", StringComparison.Ordinal)) is { } role)
            {
                // Past its start-up (the process, perflab's own priming, the barrier): the role is sending load when it is killed.
                await Task.Delay(TimeSpan.FromSeconds(6));
                return role.Split(' ')[0];
            }
            if (controller.IsCompleted)
            {
                return "";
            }
            await Task.Delay(100);
        }
        throw new TimeoutException($"no load role appeared on {host}");
    }

    /// <summary>
    /// Until the host's generator has held connections to the app for two whole seconds: past its start and the barrier,
    /// with answers back (150 ms each), so it has measured something. Six seconds after the role appeared were not
    /// always enough with the whole suite and three builds beside it (load average 28: "gen-1 0 req").
    /// </summary>
    private static async Task WaitUntilSendingAsync(NetnsLab lab, string host, Task controller)
    {
        var deadline = DateTime.UtcNow.AddSeconds(60);
        var seen = 0;
        while (seen < 3 && !controller.IsCompleted && DateTime.UtcNow < deadline)
        {
            var connections = NetnsLab.Run("ip", "netns", "exec", lab.Hosts[host].Namespace, "ss", "-tnH", "state", "established",
                "dst", string.Create(CultureInfo.InvariantCulture, $"{lab.Hosts["app"].Address}:{Port}"));
            seen = connections.Trim().Length > 0 ? seen + 1 : 0;
            await Task.Delay(1000);
        }
    }

    /// <summary>
    /// Every listed host's namespace holds its sshd and nothing else, within 15 s (the bound docs/hosts.md gives a lost
    /// link; a role whose session closed exits sooner, but a CI host at twice its cores' load slows its shutdown).
    /// </summary>
    private static async Task AssertNothingLeftAsync(NetnsLab lab, params string[] hosts)
    {
        var deadline = DateTime.UtcNow.AddSeconds(15);
        while (hosts.Any(h => lab.ProcessesBesidesSshd(h).Count > 0) && DateTime.UtcNow < deadline)
        {
            await Task.Delay(100);
        }
        Assert.All(hosts, h => Assert.Empty(lab.ProcessesBesidesSshd(h)));
    }
}

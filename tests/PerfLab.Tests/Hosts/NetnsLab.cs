using System.Diagnostics;
using System.Globalization;

namespace PerfLab.Tests.Hosts;

/// <summary>
/// Hosts made of Linux network namespaces, for the tests of placement over ssh: a controller namespace holding a bridge,
/// and one namespace per host joined to it by a veth pair, each running its own sshd with a throwaway host key and
/// accepting one throwaway user key. Addresses (10.x.y.0/24, drawn per lab) exist inside these namespaces only; the
/// machine's own network is untouched. Everything (sshds, any process left in a namespace, the namespaces, the veths
/// with them) is removed on Dispose and, should the test process die first, on its exit.
/// </summary>
internal sealed class NetnsLab : IDisposable
{
    private static int s_labs;

    private readonly List<Process> _sshds = [];
    private readonly List<string> _namespaces = [];
    private readonly string _prefix;
    private readonly string _subnet;
    private int _disposed;
    private bool _sharedCache;
    private IReadOnlyCollection<string> _withoutAspNetCore = [];

    public string Folder { get; }
    public string Controller { get; }

    /// <summary>The controller namespace's address on the lab's bridge: where its load (`load: [local]`) comes from.</summary>
    public string ControllerAddress => _subnet + ".1";
    public string SshConfig => Path.Combine(Folder, "ssh_config");
    public string UserKey => Path.Combine(Folder, "user_key");
    public IReadOnlyDictionary<string, (string Namespace, string Address)> Hosts => _hosts;

    private readonly Dictionary<string, (string Namespace, string Address)> _hosts = new(StringComparer.Ordinal);
    private readonly Dictionary<string, string> _links = new(StringComparer.Ordinal);

    private NetnsLab()
    {
        var n = Interlocked.Increment(ref s_labs);
        // Interface names are at most 15 characters: pl + 4 digits of the pid + the lab's number + a role letter + index.
        _prefix = string.Create(CultureInfo.InvariantCulture, $"pl{Environment.ProcessId % 10000:0000}{n}");
        _subnet = string.Create(CultureInfo.InvariantCulture, $"10.{Random.Shared.Next(100, 250)}.{Random.Shared.Next(1, 250)}");
        Folder = Directory.CreateTempSubdirectory("perflab-netns-").FullName;
        // A db host's PostgreSQL runs as the postgres user and keeps its data under the lab: it must traverse the folder.
        if (!OperatingSystem.IsWindows())
        {
            File.SetUnixFileMode(Folder, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute
                | UnixFileMode.GroupRead | UnixFileMode.GroupExecute | UnixFileMode.OtherRead | UnixFileMode.OtherExecute);
        }
        Controller = _prefix + "c";
        AppDomain.CurrentDomain.ProcessExit += OnExit;
    }

    /// <summary>A controller namespace and one host namespace per name, each with a listening sshd.</summary>
    /// <param name="withoutDotnet">Hosts whose sshd sees an empty folder where the .NET install is (a host without the runtime).</param>
    /// <param name="sharedCache">Every host keeps perflab's copies in one folder (as hosts sharing an NFS home do).</param>
    /// <param name="withoutAspNetCore">Hosts whose sshd sees an empty folder where ASP.NET Core's shared framework is: the
    /// .NET runtime alone, as the dotnet-runtime-10.0 package installs it.</param>
    public static NetnsLab Create(IReadOnlyList<string> hostNames, IReadOnlyCollection<string>? withoutDotnet = null,
        bool sharedCache = false, IReadOnlyCollection<string>? withoutAspNetCore = null)
    {
        Require(Environment.IsPrivilegedProcess, "the hosts tests need root (ip netns, sshd); CI runs as root");
        Require(File.Exists("/usr/sbin/sshd") && File.Exists("/usr/bin/ssh"), "sshd or ssh is missing: `dotnet test` installs them as root (scripts/setup.sh --for-tests: openssh-server, openssh-client)");
        var lab = new NetnsLab();
        try
        {
            lab._sharedCache = sharedCache;
            lab._withoutAspNetCore = withoutAspNetCore ?? [];
            lab.Build(hostNames, withoutDotnet ?? []);
            return lab;
        }
        catch
        {
            lab.Dispose();
            throw;
        }
    }

    private void Build(IReadOnlyList<string> hostNames, IReadOnlyCollection<string> withoutDotnet)
    {
        Directory.CreateDirectory("/run/sshd");
        Run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", UserKey);
        Run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", Path.Combine(Folder, "host_key"));
        File.Copy(UserKey + ".pub", Path.Combine(Folder, "authorized_keys"));
        AddNamespace(Controller);
        Ip(Controller, "link", "set", "lo", "up");
        Ip(Controller, "link", "add", "br0", "type", "bridge");
        Ip(Controller, "addr", "add", $"{_subnet}.1/24", "dev", "br0");
        Ip(Controller, "link", "set", "br0", "up");
        var config = new System.Text.StringBuilder();
        var knownHosts = new System.Text.StringBuilder();
        var hostKey = File.ReadAllText(Path.Combine(Folder, "host_key.pub")).Trim();
        for (var i = 0; i < hostNames.Count; i++)
        {
            var name = hostNames[i];
            var ns = string.Create(CultureInfo.InvariantCulture, $"{_prefix}h{i}");
            var address = string.Create(CultureInfo.InvariantCulture, $"{_subnet}.{i + 2}");
            AddHost(ns, address, i);
            var dotnetRoot = Path.GetDirectoryName(Path.GetFullPath(ResolveDotnet()))!;
            StartSshd(ns, address, withoutDotnet.Contains(name) ? dotnetRoot
                : _withoutAspNetCore.Contains(name) ? Path.Combine(dotnetRoot, "shared", "Microsoft.AspNetCore.App")
                : null);
            _hosts[name] = (ns, address);
            _links[name] = string.Create(CultureInfo.InvariantCulture, $"{_prefix}v{i}");
            config.Append(CultureInfo.InvariantCulture, $"Host {name}\n  HostName {address}\n  User root\n  IdentityFile {UserKey}\n  IdentitiesOnly yes\n  UserKnownHostsFile {Folder}/known_hosts\n  StrictHostKeyChecking yes\n\n");
            knownHosts.Append(CultureInfo.InvariantCulture, $"{address} {hostKey}\n");
        }
        File.WriteAllText(SshConfig, config.ToString());
        File.WriteAllText(Path.Combine(Folder, "known_hosts"), knownHosts.ToString());
    }

    private void AddHost(string ns, string address, int index)
    {
        AddNamespace(ns);
        var inside = string.Create(CultureInfo.InvariantCulture, $"{_prefix}v{index}");
        var outside = inside + "b";
        Run("ip", "link", "add", inside, "type", "veth", "peer", "name", outside);
        Run("ip", "link", "set", inside, "netns", ns);
        Run("ip", "link", "set", outside, "netns", Controller);
        Ip(Controller, "link", "set", outside, "master", "br0");
        Ip(Controller, "link", "set", outside, "up");
        Ip(ns, "link", "set", "lo", "up");
        Ip(ns, "addr", "add", $"{address}/24", "dev", inside);
        Ip(ns, "link", "set", inside, "up");
    }

    /// <param name="hidden">A folder the sshd's mount namespace shows empty (the .NET install, or one framework of it).</param>
    private void StartSshd(string ns, string address, string? hidden)
    {
        var config = Path.Combine(Folder, $"sshd_{ns}.conf");
        File.WriteAllText(config, string.Join('\n',
            $"ListenAddress {address}", "Port 22", $"HostKey {Folder}/host_key", $"AuthorizedKeysFile {Folder}/authorized_keys",
            $"PidFile {Folder}/sshd_{ns}.pid", "StrictModes no", "UsePAM no", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
            "PermitRootLogin prohibit-password", "Subsystem sftp internal-sftp", "LogLevel ERROR",
            // Each host keeps perflab's copies in a folder of its own inside the lab (the namespaces share one disk).
            $"SetEnv PERFLAB_HOST_CACHE={CacheOf(ns)}", ""));
        // `ip netns exec` gives the command a mount namespace of its own: a bind mount there hides .NET from this host only.
        var command = hidden is not null
            ? $"mkdir -p {Folder}/empty && mount --bind {Folder}/empty {hidden} && exec /usr/sbin/sshd -D -e -f {config}"
            : $"exec /usr/sbin/sshd -D -e -f {config}";
        var info = new ProcessStartInfo("ip") { RedirectStandardError = true, RedirectStandardOutput = true, UseShellExecute = false };
        foreach (var arg in new[] { "netns", "exec", ns, "sh", "-c", command })
        {
            info.ArgumentList.Add(arg);
        }
        var sshd = Process.Start(info)!;
        _sshds.Add(sshd);
        sshd.ErrorDataReceived += (_, _) => { };
        sshd.BeginErrorReadLine();
        sshd.BeginOutputReadLine();
        WaitListening(ns, address, sshd);
    }

    /// <summary>sshd -D prints nothing when it listens (LogLevel ERROR): poll the namespace's listening sockets, bounded.</summary>
    private static void WaitListening(string ns, string address, Process sshd)
    {
        var deadline = DateTime.UtcNow.AddSeconds(10);
        while (DateTime.UtcNow < deadline)
        {
            if (sshd.HasExited)
            {
                throw new InvalidOperationException($"sshd in {ns} exited with {sshd.ExitCode}");
            }
            if (Run("ip", "netns", "exec", ns, "ss", "-Htln").Contains($"{address}:22", StringComparison.Ordinal))
            {
                return;
            }
            Thread.Sleep(20);
        }
        throw new TimeoutException($"sshd in {ns} did not listen on {address}:22 within 10 s");
    }

    /// <summary>
    /// Takes the host's one link down inside its namespace, without a word to either side: a partition, as a switch or a
    /// cable failing makes one. Its sessions stay open on both ends until a heartbeat or keepalive notices.
    /// </summary>
    public void CutLink(string host) => Ip(_hosts[host].Namespace, "link", "set", _links[host], "down");

    /// <summary>The folder a host's roles keep perflab's copies, PostgreSQL's data and logs in (PERFLAB_HOST_CACHE).</summary>
    public string CacheOf(string ns) => _sharedCache ? Path.Combine(Folder, "cache-shared") : Path.Combine(Folder, $"cache-{ns}");

    /// <summary>Every process in a host's namespace besides sshd (its listener and sessions), as "pid command line".</summary>
    public IReadOnlyList<string> ProcessesBesidesSshd(string host)
    {
        var ns = _hosts[host].Namespace;
        var found = new List<string>();
        foreach (var pid in Run("ip", "netns", "pids", ns).Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            try
            {
                var comm = File.ReadAllText($"/proc/{pid}/comm").Trim();
                if (comm is not ("sshd" or "sh"))
                {
                    found.Add($"{pid} {File.ReadAllText($"/proc/{pid}/cmdline").Replace('\0', ' ').Trim()}");
                }
            }
            catch (IOException)
            {
                // It ended between the listing and the read: not left over.
            }
        }
        return found;
    }

    private static string ResolveDotnet()
    {
        var dotnet = Run("sh", "-c", "command -v dotnet").Trim();
        var link = new FileInfo(dotnet).ResolveLinkTarget(returnFinalTarget: true);
        return link?.FullName ?? dotnet;
    }

    private void AddNamespace(string ns)
    {
        Run("ip", "netns", "add", ns);
        _namespaces.Add(ns);
    }

    private static void Ip(string ns, params string[] args) => Run("ip", ["netns", "exec", ns, "ip", .. args]);

    public static string Run(string program, params string[] args)
    {
        var info = new ProcessStartInfo(program) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var arg in args)
        {
            info.ArgumentList.Add(arg);
        }
        using var process = Process.Start(info)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEnd();
        if (!process.WaitForExit(30_000))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"{program} {string.Join(' ', args)} did not finish within 30 s");
        }
        return process.ExitCode == 0 ? stdout.Result : throw new InvalidOperationException($"{program} {string.Join(' ', args)}: exit {process.ExitCode}: {stderr}");
    }

    private static void Require(bool ok, string reason)
    {
        if (!ok)
        {
            throw new InvalidOperationException($"cannot build network-namespace hosts: {reason}.");
        }
    }

    private void OnExit(object? sender, EventArgs e) => Dispose();

    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }
        AppDomain.CurrentDomain.ProcessExit -= OnExit;
        foreach (var sshd in _sshds)
        {
            try
            {
                sshd.Kill(entireProcessTree: true);
                sshd.WaitForExit(5000);
            }
            catch (InvalidOperationException)
            {
            }
            sshd.Dispose();
        }
        foreach (var ns in _namespaces)
        {
            // Anything still running in one of our namespaces is ours (a role a test left behind): end it by pid.
            try
            {
                foreach (var pid in Run("ip", "netns", "pids", ns).Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
                {
                    Run("kill", "-9", pid);
                }
            }
            catch (InvalidOperationException)
            {
            }
            try
            {
                Run("ip", "netns", "del", ns);
            }
            catch (InvalidOperationException)
            {
            }
        }
        try
        {
            Directory.Delete(Folder, recursive: true);
        }
        catch (IOException)
        {
        }
    }
}

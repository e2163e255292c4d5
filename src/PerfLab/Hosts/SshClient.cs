using System.Diagnostics;
using PerfLab.Common;

namespace PerfLab.Hosts;

/// <summary>What one command printed on a host, and how it ended.</summary>
internal sealed record HostOutput(int ExitCode, string Stdout, string Stderr);

/// <summary>
/// The system OpenSSH client, so the user's ~/.ssh/config, ProxyJump, agent and ControlMaster apply unchanged; a
/// "local" host runs the same command under bash here. Never prompts: BatchMode turns a password or passphrase question
/// into a failure that <see cref="Failure"/> explains.
/// </summary>
internal sealed class SshClient(string? configFile)
{
    /// <summary>ssh exits with 255 when the connection itself failed, whatever the remote command would have returned.</summary>
    public const int ConnectionFailed = 255;

    private static readonly TimeSpan ConnectTimeout = TimeSpan.FromSeconds(5);

    public string? ConfigFile { get; } = configFile;

    /// <summary>
    /// The program and arguments that run <paramref name="command"/>
    /// (a POSIX shell command line) on <paramref name="host"/>.
    /// </summary>
    public (string Program, List<string> Arguments) Command(HostRef host, string command)
    {
        if (host.IsLocal)
        {
            return ("bash", ["-c", command]);
        }
        var args = new List<string>();
        if (ConfigFile is not null)
        {
            args.AddRange(["-F", ConfigFile]);
        }
        args.AddRange([
            "-T",
            "-o", "BatchMode=yes",
            "-o", $"ConnectTimeout={(int)ConnectTimeout.TotalSeconds}",
            // A host that stops answering ends the session within ~6 s, and with it the role running there.
            "-o", "ServerAliveInterval=2",
            "-o", "ServerAliveCountMax=3",
            "-o", "LogLevel=ERROR",
            "--", host.Destination, command,
        ]);
        return ("ssh", args);
    }

    public ProcessStartInfo StartInfo(HostRef host, string command)
    {
        var (program, args) = Command(host, command);
        var info = new ProcessStartInfo(program)
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var arg in args)
        {
            info.ArgumentList.Add(arg);
        }
        ChildEnvironment.Apply(info, new Dictionary<string, string> { ["LC_ALL"] = "C" });
        return info;
    }

    /// <summary>Runs a short command to its end (stdin closed at once), within <paramref name="timeout"/>.</summary>
    public async Task<HostOutput> RunAsync(HostRef host, string command, TimeSpan timeout, CancellationToken ct)
    {
        var (program, args) = Command(host, command);
        var stdout = new System.Text.StringBuilder();
        var stderr = new System.Text.StringBuilder();
        var spec = new ProcessSpec(program, args)
        {
            Timeout = timeout,
            Environment = new Dictionary<string, string> { ["LC_ALL"] = "C", ["LANG"] = "C" },
            OnOutputLine = line => stdout.Append(line).Append('\n'),
            OnErrorLine = line => stderr.Append(line).Append('\n'),
        };
        try
        {
            var exit = await ProcessRunner.RunAsync(spec, ct).ConfigureAwait(false);
            return new HostOutput(exit, stdout.ToString(), stderr.ToString().Trim());
        }
        catch (PerfLabException ex) when (ex.InnerException is TimeoutException)
        {
            throw new PerfLabException($"{host}: no answer within {timeout.TotalSeconds:0} s; check that it is up and that "
                + $"ssh {host.Destination} works.", ExitCode.Unreachable, ex);
        }
    }

    /// <summary>
    /// The address and port ssh connects to for <paramref name="host"/>
    /// (its config applied: HostName, Port), from <c>ssh -G</c>.
    /// </summary>
    public async Task<(string Address, int Port)> ResolveAsync(HostRef host, CancellationToken ct)
    {
        if (host.IsLocal)
        {
            return ("127.0.0.1", 22);
        }
        var args = new List<string>();
        if (ConfigFile is not null)
        {
            args.AddRange(["-F", ConfigFile]);
        }
        args.AddRange(["-G", "--", host.Destination]);
        var result = await ProcessRunner.RunAsync("ssh", args, null, TimeSpan.FromSeconds(10), ct).ConfigureAwait(false);
        string? name = null;
        var port = 22;
        foreach (var line in result.Output.Split('\n'))
        {
            var parts = line.Trim().Split(' ', 2);
            if (parts is ["hostname", var h])
            {
                name = h;
            }
            else if (parts is ["port", var p] && int.TryParse(p, System.Globalization.CultureInfo.InvariantCulture, out var n))
            {
                port = n;
            }
        }
        return name is not null && result.ExitCode == 0
            ? (name, port)
            : throw new PerfLabException($"{host}: ssh cannot read its configuration: {result.Output.Trim()}", ExitCode.Usage);
    }

    /// <summary>Why ssh could not run a command on <paramref name="host"/>, and what fixes it; exit code Unreachable.</summary>
    public static PerfLabException Failure(HostRef host, HostOutput output)
    {
        var err = output.Stderr;
        bool Has(string s) => err.Contains(s, StringComparison.OrdinalIgnoreCase);
        var reason =
            Has("Permission denied") ? $"the host refused the key: add your public key to its ~/.ssh/authorized_keys "
                + $"(ssh-copy-id {host.Destination}), or name the right IdentityFile in the ssh config"
            : Has("Host key verification failed") || Has("REMOTE HOST IDENTIFICATION")
                ? $"its host key is unknown or has changed: connect once with ssh {host.Destination} and check the key, or fix known_hosts"
            : Has("Connection refused") ? "nothing listens for ssh there: start sshd on it or fix Port in the ssh config"
            : Has("Could not resolve hostname") ? "its name does not resolve: fix HostName in the ssh config or use an address"
            : Has("timed out") || Has("No route to host") || Has("Network is unreachable")
                ? "it does not answer on the network: check that it is up and its address in the ssh config"
            : output.ExitCode == ConnectionFailed && err.Trim().Length == 0
                ? $"the connection to it failed or was lost, and ssh said nothing (exit 255): check that ssh {host.Destination} answers"
            : $"ssh failed (exit {output.ExitCode}): {FirstLine(err)}";
        return new PerfLabException($"{host}: {reason}.", ExitCode.Unreachable);
    }

    private static string FirstLine(string text) => text.Split('\n', StringSplitOptions.RemoveEmptyEntries).FirstOrDefault()?.Trim()
        ?? "no message";
}

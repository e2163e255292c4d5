using System.Security.Cryptography;
using System.Text;

namespace PerfLab.Database;

/// <summary>
/// The login the app uses when PostgreSQL runs on a host of its own: <see cref="User"/>, which can read the lab's tables
/// and nothing more (not a superuser, no CREATEDB, CREATEROLE, REPLICATION or BYPASSRLS, no membership in
/// pg_execute_server_program: no <c>COPY ... TO PROGRAM</c>), with a password made for one run and accepted from the
/// app's host with SCRAM alone (<see cref="ManagedCluster"/>'s pg_hba line). The server is sent the password's SCRAM
/// verifier, never the password, so not even a statement logged on error holds it.
/// </summary>
public static class AppLogin
{
    public const string User = "perflab_app";

    // PostgreSQL's own default for a verifier it makes (scram_iterations).
    private const int Iterations = 4096;

    /// <summary>A fresh password: 192 random bits, base64url (no character a connection string must quote).</summary>
    public static string NewPassword() =>
        Convert.ToBase64String(RandomNumberGenerator.GetBytes(24)).Replace('+', '-').Replace('/', '_');

    /// <summary>
    /// Creates the login (or resets it) with <paramref name="password"/> and grants it what the app reads, over the
    /// superuser's <paramref name="superuserConnection"/> (loopback on the db host).
    /// </summary>
    public static async Task GrantAsync(string superuserConnection, string password, CancellationToken ct)
    {
        await using var connection = await PostgresConnections.OpenAsync(superuserConnection, ct);
        var schemas = string.Join(", ", Tables.All.Select(t => t.QualifiedName.Split('.')[0]).Distinct(StringComparer.Ordinal));
        var tables = string.Join(", ", Tables.All.Select(t => t.QualifiedName));
        // The verifier is base64 and '$', ':' alone: safe inside a literal.
        await PostgresConnections.ExecuteAsync(connection, null, $"""
            DO $$ BEGIN
              IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{User}') THEN CREATE ROLE {User}; END IF;
            END $$;
            ALTER ROLE {User} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
              PASSWORD '{ScramVerifier(password, RandomNumberGenerator.GetBytes(16))}';
            GRANT CONNECT ON DATABASE {PostgresConnections.DefaultDatabase} TO {User};
            GRANT USAGE ON SCHEMA {schemas} TO {User};
            GRANT SELECT ON {tables} TO {User};
            """, ct);
    }

    /// <summary>
    /// The SCRAM-SHA-256 verifier PostgreSQL stores for <paramref name="password"/> (RFC 5802/7677, PostgreSQL's text
    /// form <c>SCRAM-SHA-256$ITERATIONS:SALT$STOREDKEY:SERVERKEY</c>); a password of ASCII letters, digits, '-' and
    /// '_' is its own SASLprep.
    /// </summary>
    internal static string ScramVerifier(string password, byte[] salt)
    {
        var salted = Rfc2898DeriveBytes.Pbkdf2(Encoding.UTF8.GetBytes(password), salt, Iterations, HashAlgorithmName.SHA256, 32);
        var clientKey = HMACSHA256.HashData(salted, "Client Key"u8);
        var serverKey = HMACSHA256.HashData(salted, "Server Key"u8);
        return $"SCRAM-SHA-256${Iterations}:{Convert.ToBase64String(salt)}$"
            + $"{Convert.ToBase64String(SHA256.HashData(clientKey))}:{Convert.ToBase64String(serverKey)}";
    }
}

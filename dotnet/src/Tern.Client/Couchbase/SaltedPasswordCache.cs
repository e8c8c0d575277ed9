using System.Collections.Concurrent;
using System.Security.Cryptography;
using System.Text;

namespace Tern.Client.Couchbase;

/// <summary>
/// Remembers SCRAM's salted password (PBKDF2 of the password, thousands of rounds: milliseconds
/// of CPU) per mechanism, salt and round count, so the many connections a cluster opens with one
/// set of credentials derive it once. It holds nothing the process does not hold already: whoever
/// can read it can read the password beside it.
/// </summary>
internal sealed class SaltedPasswordCache(string password)
{
    private readonly ConcurrentDictionary<(ScramMechanism, string, int), byte[]> _derived = new();

    public byte[] Get(ScramMechanism mechanism, byte[] salt, int iterations, HashAlgorithmName hash, int length) =>
        _derived.GetOrAdd((mechanism, Convert.ToBase64String(salt), iterations),
            static (_, state) => Rfc2898DeriveBytes.Pbkdf2(Encoding.UTF8.GetBytes(state.password), state.salt, state.iterations,
                state.hash, state.length),
            (password, salt, iterations, hash, length));
}

/** Self-serve keys need GET/POST /keys and PATCH/DELETE /keys/{key_id} (issue 19, key half), not yet in the API. */
export default function Keys() {
  return (
    <>
      <h1>API keys</h1>
      <p className="muted">Creating and revoking keys here comes with the API&apos;s key endpoints. Until then an operator creates keys with the admin CLI.</p>
    </>
  );
}

export default function AuthPages(_props: { path: string }) {
  return <h1>AuthPages</h1>;
}

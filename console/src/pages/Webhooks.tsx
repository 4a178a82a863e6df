export default function Webhooks() {
  return <h1>Webhooks</h1>;
}

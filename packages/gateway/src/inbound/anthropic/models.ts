/** A model as GET /v1/models lists it to Anthropic clients (those that send anthropic-version). */
export interface ListedModel {
  id: string;
  /** Unix seconds. */
  created: number;
}

export function anthropicModel(model: ListedModel): Record<string, unknown> {
  return {
    type: "model",
    id: model.id,
    display_name: model.id,
    created_at: new Date(model.created * 1000).toISOString(),
  };
}

/** Anthropic's list page: every model on one page. */
export function anthropicModelList(models: readonly ListedModel[]): Record<string, unknown> {
  const data = models.map(anthropicModel);
  return {
    data,
    has_more: false,
    first_id: data.length > 0 ? models[0]!.id : null,
    last_id: data.length > 0 ? models[models.length - 1]!.id : null,
  };
}

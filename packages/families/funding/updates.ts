import { derivedUuid, newUuid } from '#packages/core/ids.js';
import { toCampaignObject } from './render.js';
import type { CampaignObject } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import type { FundingCampaignCommits, FundingDeps } from './commands.js';

/** The news an organizer posts on a campaign's page (docs/funding.md): posted, edited, deleted. */
export class CampaignUpdates {
  constructor(
    private readonly deps: FundingDeps,
    private readonly commits: FundingCampaignCommits,
  ) {}

  async postUpdate(owner: Owner, id: string, input: { title: string; body: string }, actor: Actor, requestRef?: string): Promise<CampaignObject & { update: unknown }> {
    const updateId = requestRef === undefined ? newUuid() : derivedUuid(`funding_update|${owner.merchantId}|${owner.environment}|${id}|${requestRef}`);
    const update = { id: updateId, title: input.title, body: input.body, createdAt: this.deps.clock.now().toISOString(), editedAt: null };
    const result = await this.commits.run(id, { type: 'post_update', owner, at: this.deps.clock.now(), update }, this.commits.metadata(owner, id, actor));
    return { ...toCampaignObject(result.state), update: result.state.updates.find((u) => u.id === updateId) };
  }

  async editUpdate(owner: Owner, id: string, updateId: string, input: { title?: string; body?: string }, actor: Actor) {
    const result = await this.commits.run(id, { type: 'edit_update', owner, at: this.deps.clock.now(), updateId, ...input }, this.commits.metadata(owner, id, actor));
    return result.state.updates.find((u) => u.id === updateId)!;
  }

  async deleteUpdate(owner: Owner, id: string, updateId: string, actor: Actor): Promise<{ id: string; deleted: true }> {
    await this.commits.run(id, { type: 'delete_update', owner, at: this.deps.clock.now(), updateId }, this.commits.metadata(owner, id, actor));
    return { id: updateId, deleted: true };
  }
}
